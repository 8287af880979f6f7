// SQL pieces every read model shares, so the scope rule and the two time axes are
// written once. `f` is the alias of the row being filtered.
import { Prisma } from "@recall/db";
import { normaliseScope, type Scope } from "../core/scope";
import type { ListPosition } from "./read-types";

/**
 * The scope rule of ../scope.ts in SQL: written ⊆ reader. A row names its scope's set (core/scope-sets.ts): it is
 * visible when unscoped, or when its set's entries are all the reader's. The sets a reader sees are read once per
 * statement (an uncorrelated subquery, hashed); row-level security keeps them to the connection's context, and a set id
 * is never shared between contexts, so under the audited bypass another context's sets match none of this one's rows.
 */
export function visibleTo(alias: string, scope: Scope): Prisma.Sql {
  const reader = normaliseScope(scope);
  const column = Prisma.raw(`${alias}.scope_set_id`);
  if (reader.length === 0) return Prisma.sql`${column} IS NULL`;
  return Prisma.sql`(${column} IS NULL OR ${column} IN (SELECT s.id FROM scope_sets s WHERE s.entries <@ ${reader}::text[]))`;
}

/**
 * The scope of row `outer` contains that of row `inner` (both of one context). Equal sets are one id, so the common
 * cases (unscoped, the same scope) are decided without reading a set.
 */
export function scopeContains(outer: string, inner: string): Prisma.Sql {
  const [o, i] = [Prisma.raw(`${outer}.scope_set_id`), Prisma.raw(`${inner}.scope_set_id`)];
  return Prisma.sql`(${i} IS NULL OR ${i} = ${o} OR recall_scope(${o}) @> recall_scope(${i}))`;
}

/** The scope of row `outer` contains that of row `inner` and is not the same. */
export function scopeStrictlyContains(outer: string, inner: string): Prisma.Sql {
  const [o, i] = [Prisma.raw(`${outer}.scope_set_id`), Prisma.raw(`${inner}.scope_set_id`)];
  return Prisma.sql`(${o} IS DISTINCT FROM ${i} AND ${scopeContains(outer, inner)})`;
}

/** Valid time: the fact was true in the world at `at` (validity is half-open, [valid_from, valid_to)). */
export function validAt(alias: string, at: Date, validTo: Prisma.Sql = Prisma.raw(`${alias}.valid_to`)): Prisma.Sql {
  return Prisma.sql`${Prisma.raw(alias)}.valid_from <= ${at} AND (${validTo} IS NULL OR ${validTo} > ${at})`;
}

/** System time: the row had been recorded and not yet retracted at `at`; without `at`, as the store stands now. */
export function knownAt(alias: string, at: Date | undefined, column = "recorded_at"): Prisma.Sql {
  const a = Prisma.raw(alias);
  if (!at) return Prisma.sql`${a}.retracted_at IS NULL`;
  return Prisma.sql`${a}.${Prisma.raw(column)} <= ${at} AND (${a}.retracted_at IS NULL OR ${a}.retracted_at > ${at})`;
}

/** Keyset pagination over (k, id); `k` must be the column the list is ordered by. */
export function afterPosition(k: Prisma.Sql, id: Prisma.Sql, after: ListPosition | undefined, descending = false): Prisma.Sql {
  if (!after) return Prisma.sql`TRUE`;
  const key = typeof after.k === "number" ? after.k : new Date(after.k);
  return descending ? Prisma.sql`(${k}, ${id}) < (${key}, ${after.id}::uuid)` : Prisma.sql`(${k}, ${id}) > (${key}, ${after.id}::uuid)`;
}

export function and(parts: Prisma.Sql[]): Prisma.Sql {
  return parts.length === 0 ? Prisma.sql`TRUE` : Prisma.join(parts, " AND ");
}

/** Takes one row more than asked, to know whether a next page exists without a count. */
export function pageOf<T extends { id: string }>(rows: T[], limit: number, keyOf: (row: T) => string | number) {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next: rows.length > limit && last ? { k: keyOf(last), id: last.id } : null };
}
