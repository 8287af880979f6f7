// An erasure by scope and the writers of inputs under that scope must not pass each other: an input stored while the
// erasure reads which inputs the scope holds would be neither erased nor refused. Both take one advisory lock per
// scope pair (`user=alice`), in sorted order: writers shared (they never block one another), the erasure exclusively
// for the pairs it names. So an input under the scope is stored either before the erasure reads (and erased with
// the rest) or after its receipt (a new input). Writers take them first in their transaction, before any row lock,
// as the erasure does, so the two never wait on each other in opposite orders.
import type { Tx } from "@recall/db";
import { normaliseScope } from "../scope";

const key = (contextId: string, pair: string) => `scope|${contextId}|${pair}`;

/** A writer storing an input under `scope` (every pair of it). */
export async function holdScopeShared(tx: Tx, contextId: string, scope: readonly string[]): Promise<void> {
  for (const pair of normaliseScope(scope))
    await tx.$executeRaw`SELECT pg_advisory_xact_lock_shared(hashtextextended(${key(contextId, pair)}, 0))`;
}

/** An erasure of every input whose scope contains these pairs. */
export async function holdScopeExclusive(tx: Tx, contextId: string, pairs: readonly string[]): Promise<void> {
  for (const pair of normaliseScope(pairs))
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${key(contextId, pair)}, 0))`;
}
