// An erasure by scope and the writers of inputs under that scope must not pass each other: an input stored while the
// erasure reads which inputs the scope holds would be neither erased nor refused. Both take one advisory lock per
// scope pair (`user=alice`), in the order of their hashes: writers shared (they never block one another), the erasure exclusively
// for the pairs it names. So an input under the scope is stored either before the erasure reads (and erased with
// the rest) or after its receipt (a new input). Writers take them first in their transaction, before any row lock,
// as the erasure does, so the two never wait on each other in opposite orders.
import { holdLocksByHash, lockKey, type Tx } from "@recall/db";
import { normaliseScope } from "./scope";

const keys = (contextId: string, pairs: readonly string[]) => normaliseScope(pairs).map((pair) => lockKey("scope", contextId, pair));

/**
 * A writer storing an input under `scope` (every pair of it). One statement for all the pairs, in the order of their
 * hashes (as the erasure takes them): a turn holds its session's line while it stores, so each round trip here is paid
 * by every turn queued behind it.
 */
export async function holdScopeShared(tx: Tx, contextId: string, scope: readonly string[]): Promise<void> {
  await holdLocksByHash(tx, keys(contextId, scope), "shared");
}

/** An erasure of every input whose scope contains these pairs. */
export async function holdScopeExclusive(tx: Tx, contextId: string, pairs: readonly string[]): Promise<void> {
  await holdLocksByHash(tx, keys(contextId, pairs), "exclusive");
}
