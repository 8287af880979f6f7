// One query over both fact tables (attributes: entity → literal, relations: entity →
// entity) with the common filters, so profile, state and history read facts the same way.
import { Prisma, type DbOrTx } from "@recall/db";
import type { Scope } from "../core/scope";
import { DEFAULT_SINGLE_VALUED } from "../core/fact-keys";
import type { FactCommon, FactView, ListPosition } from "./read-types";
import { afterPosition, and, knownAt, scopeContains, scopeStrictlyContains, validAt, visibleTo } from "./sql-fragments";
import { scopeColumn } from "../core/scope-sets";

export interface FactFilter {
  contextId: string;
  scope: Scope;
  /** Valid time: only facts true in the world at this instant. */
  validAt?: Date;
  /** System time: facts as the store knew them then; undefined = now, without retracted rows. */
  recordedAsOf?: Date;
  /** History shows retracted values too (they are part of the audit trail). */
  includeRetracted?: boolean;
  subjectIds?: string[];
  orderBy?: "recorded_at" | "valid_from";
  after?: ListPosition;
  limit?: number;
  /**
   * Within the limit, these facts (by id, or by the assertion they were read in) first, then the newest: a reader that
   * weighs at most `limit` facts of entities known by thousands keeps the ones it matched (no paging with this).
   */
  prefer?: { ids: string[]; assertionIds: string[] };
}

interface FactRow extends FactCommon {
  kind: "attribute" | "relation";
  subject_id: string;
  subject_name: string;
  subject_type: string;
  predicate: string;
  value: string | null;
  object_id: string | null;
  object_name: string | null;
  object_type: string | null;
}

/** Column names of each fact table; `value` and `object` are expressions over `f`; `same` is the column a restatement repeats. */
const TABLES = {
  attribute: { table: "attributes", subject: "entity_id", predicate: "key", value: "f.value", object: "NULL::uuid", same: "value" },
  relation: {
    table: "relations",
    subject: "subject_id",
    predicate: "predicate",
    value: "NULL::text",
    object: "f.object_id",
    same: "object_id",
  },
} as const;

export async function readFacts(db: DbOrTx, filter: FactFilter): Promise<FactView[]> {
  const order = Prisma.raw(`u.${filter.orderBy ?? "recorded_at"}`);
  const sorted = filter.prefer
    ? Prisma.sql`(u.id = ANY(${filter.prefer.ids}::uuid[]) OR u.assertion_id = ANY(${filter.prefer.assertionIds}::uuid[])) DESC, ${order} DESC, u.id`
    : Prisma.sql`${order}, u.id`;
  const rows = await db.$queryRaw<FactRow[]>(Prisma.sql`
    SELECT u.*, s.name AS subject_name, s.type AS subject_type, o.name AS object_name, o.type AS object_type
    FROM (${branch("attribute", filter)} UNION ALL ${branch("relation", filter)}) u
    JOIN entities s ON s.id = u.subject_id AND s.context_id = ${filter.contextId}::uuid
    LEFT JOIN entities o ON o.id = u.object_id AND o.context_id = ${filter.contextId}::uuid
    WHERE ${afterPosition(order, Prisma.raw("u.id"), filter.after)}
    ORDER BY ${sorted}
    ${filter.limit === undefined ? Prisma.empty : Prisma.sql`LIMIT ${filter.limit}`}`);
  return rows.map(toFactView);
}

/** The SELECT over one fact table; column order must match in both branches of the UNION. */
function branch(kind: keyof typeof TABLES, filter: FactFilter): Prisma.Sql {
  const t = TABLES[kind];
  const timeTravel = filter.recordedAsOf ? asRecordedThen(t.table, filter.recordedAsOf) : undefined;
  const validTo = timeTravel?.validTo ?? Prisma.raw("f.valid_to");
  const where = [Prisma.sql`f.context_id = ${filter.contextId}::uuid`, visibleTo("f", filter.scope)];
  if (!filter.includeRetracted) where.push(knownAt("f", filter.recordedAsOf));
  if (filter.validAt)
    where.push(validAt("f", filter.validAt, validTo), shownToReader(kind, filter.scope, filter.validAt, filter.recordedAsOf));
  if (filter.subjectIds) where.push(Prisma.sql`f.${Prisma.raw(t.subject)} = ANY(${filter.subjectIds}::uuid[])`);
  return Prisma.sql`
    SELECT ${kind}::text AS kind, f.id, f.${Prisma.raw(t.subject)} AS subject_id, f.${Prisma.raw(t.predicate)} AS predicate,
      ${Prisma.raw(t.value)} AS value, ${Prisma.raw(t.object)} AS object_id, f.memory_category::text AS memory_category,
      f.confidence, ${scopeColumn("f")} AS scope, f.valid_from, ${validTo} AS valid_to, ${timeTravel?.supersededBy ?? Prisma.raw("f.superseded_by")} AS superseded_by,
      f.recorded_at, f.retracted_at, f.assertion_id
    FROM ${Prisma.raw(t.table)} f ${timeTravel?.joins ?? Prisma.empty}
    WHERE ${and(where)}`;
}

/**
 * Supersession closes a fact in place (valid_to, superseded_by) and logs each step in
 * `supersessions` with when it was taken and undone. Seen from system time `at`, the
 * step then in force decides; with none in force the fact had the valid_to its source
 * stated, which the first step kept as previous_valid_to (supersession.ts).
 */
function asRecordedThen(table: string, at: Date, alias = "f") {
  const kind = table === "attributes" ? "attribute" : "relation";
  const [a, inForce, firstStep] = [alias, `${alias}_in_force`, `${alias}_first_step`].map((name) => Prisma.raw(name));
  return {
    joins: Prisma.sql`
      LEFT JOIN LATERAL (SELECT s.valid_to, s.newer_id FROM supersessions s
        WHERE s.older_id = ${a}.id AND s.fact_kind = ${kind}::"FactKind" AND s.created_at <= ${at} AND (s.undone_at IS NULL OR s.undone_at > ${at})
        ORDER BY s.created_at DESC LIMIT 1) ${inForce} ON TRUE
      LEFT JOIN LATERAL (SELECT TRUE AS found, s.previous_valid_to FROM supersessions s
        WHERE s.older_id = ${a}.id AND s.fact_kind = ${kind}::"FactKind" ORDER BY s.created_at LIMIT 1) ${firstStep} ON TRUE`,
    validTo: Prisma.sql`(CASE WHEN ${inForce}.newer_id IS NOT NULL THEN ${inForce}.valid_to
      WHEN ${firstStep}.found THEN ${firstStep}.previous_valid_to ELSE ${a}.valid_to END)`,
    supersededBy: Prisma.sql`(CASE WHEN ${inForce}.newer_id IS NOT NULL THEN ${inForce}.newer_id
      WHEN ${firstStep}.found THEN NULL ELSE ${a}.superseded_by END)`,
  };
}

/**
 * What a reader is shown of the facts current at `at` (as the store knew them at
 * `recordedAsOf`, if given). Two rules hide a fact `f` behind a newer one `g` of the same
 * entity and key (or predicate) that the reader also sees and that holds at `at`:
 * - scope precedence, single-valued keys only: truth maintenance closes an older value only
 *   within its own scope (scope.ts), so when Alice corrects in {org, user=alice} a title the
 *   org stated in {org}, both stay current: the org's value for everyone else, hers for her.
 *   A reader who sees both gets the narrower one. A broader value stated after the narrower
 *   one does not hide it: both stay, as before.
 * - restatement, every key: the same value (or object) said again, in the same or a narrower
 *   scope, is one fact to a reader, shown as its latest statement. Each statement keeps its
 *   own row (and provenance), so retracting one source leaves the fact backed by the other.
 *   Search passes `restatements: false` and drops repeats from its few hits in memory (search-reader.ts),
 *   which costs less than a correlated check on every matching row.
 */
export function shownToReader(
  kind: keyof typeof TABLES,
  scope: Scope,
  at: Date,
  recordedAsOf?: Date,
  { restatements = true }: { restatements?: boolean } = {},
): Prisma.Sql {
  const c = TABLES[kind];
  const [subject, predicate, same] = [Prisma.raw(c.subject), Prisma.raw(c.predicate), Prisma.raw(c.same)];
  const travel = recordedAsOf ? asRecordedThen(c.table, recordedAsOf, "g") : undefined;
  const newer = (condition: Prisma.Sql) => Prisma.sql`EXISTS (
    SELECT 1 FROM ${Prisma.raw(c.table)} g ${travel?.joins ?? Prisma.empty}
    WHERE g.context_id = f.context_id AND g.${subject} = f.${subject} AND g.${predicate} = f.${predicate} AND g.id <> f.id
      AND ${condition} AND ${visibleTo("g", scope)}
      AND ${knownAt("g", recordedAsOf)} AND ${validAt("g", at, travel?.validTo)}
      AND (g.valid_from, g.recorded_at) > (f.valid_from, f.recorded_at))`;
  const shadowed = Prisma.sql`f.${predicate} = ANY(${[...DEFAULT_SINGLE_VALUED]}::text[])
    AND ${newer(scopeStrictlyContains("g", "f"))}`;
  const restated = newer(Prisma.sql`g.${same} = f.${same} AND ${scopeContains("g", "f")}`);
  return restatements ? Prisma.sql`NOT (${shadowed}) AND NOT ${restated}` : Prisma.sql`NOT (${shadowed})`;
}

function toFactView(r: FactRow): FactView {
  const { kind, subject_id, subject_name, subject_type, predicate, value, object_id, object_name, object_type, ...common } = r;
  const subject = { id: subject_id, name: subject_name, type: subject_type };
  if (kind === "attribute") return { kind: "attribute", ...common, entity: subject, key: predicate, value: value ?? "" };
  return {
    kind: "relation",
    ...common,
    subject,
    predicate,
    object: { id: object_id ?? "", name: object_name ?? "", type: object_type ?? "" },
  };
}
