// SQL pieces every read model shares, so the scope rule and the two time axes are
// written once. `f` is the alias of the row being filtered.
import { Prisma } from "@recall/db";
import { normaliseScope, type Scope } from "../core/scope";
import type { ListPosition } from "./read-types";

/** The scope rule of ../scope.ts in SQL: written ⊆ reader. */
export function visibleTo(alias: string, scope: Scope): Prisma.Sql {
  return Prisma.sql`${Prisma.raw(alias)}.scope <@ ${normaliseScope(scope)}::text[]`;
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
