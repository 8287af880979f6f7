// Scopes are stored once per context (scope_sets, migration 20261207065706_scope_sets): a row names its scope's set
// by id (`scope_set_id`, null when unscoped) instead of carrying a copy, so a scope of 32 entries costs its bytes once,
// not once for the turn and again for each entity, mention, assertion, fact and embedding written from it.
// Postgres finds or adds a set (`recall_scope_set`, which also trims, deduplicates and sorts the entries), so every
// writer (routes, import, direct writes, the pipeline's raw inserts) names the same set for the same entries.
import { Prisma, type DbOrTx } from "@recall/db";
import { normaliseScope, type Scope } from "./scope";

/**
 * Sets already found in a transaction: a group's commits (one transaction, many turns of one scope) ask once. Only
 * within a transaction: an erasure may delete a set no row names any more, so an id is not kept beyond it.
 */
const foundIn = new WeakMap<object, Map<string, bigint | null>>();

/** The id of the context's set for `scope`, added when new; null for an empty scope. */
export async function scopeSetIdOf(db: DbOrTx, contextId: string, scope: Scope): Promise<bigint | null> {
  const entries = normaliseScope(scope);
  if (entries.length === 0) return null;
  const inTransaction = !("$transaction" in db);
  const key = `${contextId} ${JSON.stringify(entries)}`;
  const found = inTransaction ? foundIn.get(db)?.get(key) : undefined;
  if (found !== undefined) return found;
  const [row] = await db.$queryRaw<{ id: bigint | null }[]>`SELECT recall_scope_set(${contextId}::uuid, ${entries}::text[]) AS id`;
  const id = row?.id ?? null;
  if (inTransaction) foundIn.set(db, (foundIn.get(db) ?? new Map()).set(key, id));
  return id;
}

/** The entries of each set named, read in one query: a lookup answering none for null (unscoped). */
export async function scopesOf(db: DbOrTx, ids: Iterable<bigint | null>): Promise<(id: bigint | null) => string[]> {
  const wanted = [...new Set([...ids].filter((id): id is bigint => id !== null))];
  const rows =
    wanted.length === 0
      ? []
      : await db.$queryRaw<{ id: bigint; entries: string[] }[]>`
          SELECT id, entries FROM scope_sets WHERE id = ANY(${wanted.map(String)}::bigint[])`;
  const byId = new Map(rows.map((r) => [r.id, r.entries]));
  return (id) => (id === null ? [] : (byId.get(id) ?? []));
}

/** One set's entries; none for null (unscoped). */
export async function scopeOf(db: DbOrTx, id: bigint | null): Promise<string[]> {
  return (await scopesOf(db, [id]))(id);
}

/** In SQL: the entries of the set a row names (`alias.scope_set_id`), as a text[]; '{}' when unscoped. */
export function scopeColumn(alias: string): Prisma.Sql {
  return Prisma.sql`recall_scope(${Prisma.raw(alias)}.scope_set_id)`;
}

/** The set of each scope, in order: one lookup per distinct scope (a batch's turns usually share one). */
export async function scopeSetIdsOf(db: DbOrTx, contextId: string, scopes: readonly Scope[]): Promise<(bigint | null)[]> {
  const byKey = new Map<string, bigint | null>();
  for (const scope of scopes) {
    const key = JSON.stringify(normaliseScope(scope));
    if (!byKey.has(key)) byKey.set(key, await scopeSetIdOf(db, contextId, scope));
  }
  return scopes.map((scope) => byKey.get(JSON.stringify(normaliseScope(scope)))!);
}
