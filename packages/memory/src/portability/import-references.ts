// Which rows an import line's ids name: those the target context holds (kept when it restores its own export,
// import-ids.ts), and the check that none is another context's (issue 29). An import keeps only ids of the target's
// own rows (issue 42: an id of another context's row is rewritten like an id of no row, so the answer tells nothing
// of it); the check stays as a second line: a line naming, as its own id or as a reference, a row of any context
// whose ids the importer learnt (provenance, webhooks, status URLs) is refused. Ids are uuids, unique across tables,
// so a value found with another context_id in any table its column can point at is refused.
import { Prisma, type Tx } from "@recall/db";
import type { PipelineRecords } from "../core/pipeline-records";
import type { KindSpec } from "./export-format";

/**
 * A table whose `id` the column holds, or `table.column` for a unique key without context_id the row would collide on,
 * or PIPELINE_WORK: the pipeline's work (a candidate's work item), asked of the pipeline (PipelineRecords.foreignWork).
 */
type Target = string;

export const PIPELINE_WORK = "pipeline work";

const INPUTS = ["turns", "documents", "fact_writes"];
const FACTS = ["attributes", "relations"];

/**
 * Per kind, per id column: the tables it can name. A column naming rows of several kinds (a subject, a source)
 * lists them all. The line's own `id` is checked against its own table (a row kept there would answer created: 0).
 * Unique keys without context_id are listed too: ON CONFLICT DO NOTHING would skip a row that collides with
 * another context's on them.
 */
export const REFERENCE_TARGETS: Readonly<Record<string, Readonly<Record<string, readonly Target[]>>>> = {
  session: {},
  turn: { session_id: ["sessions"] },
  fact_write: {},
  source: {},
  document: { source_id: ["sources"], previous_version_id: ["documents"] },
  document_node: { document_id: ["documents"] },
  candidate: {
    work_item_id: [PIPELINE_WORK, "knowledge_candidates.work_item_id"],
    subject_id: [...INPUTS, "extraction_windows", "sessions"],
    document_node_id: ["document_nodes"],
    turn_id: ["turns"],
  },
  review: {
    candidate_id: ["knowledge_candidates", "reviews.candidate_id"],
    subject_id: [...INPUTS, "extraction_windows", "sessions"],
    session_id: ["sessions"],
  },
  entity: {},
  entity_mention: {
    entity_id: ["entities"],
    candidate_id: ["knowledge_candidates", "entity_mentions.candidate_id"],
    turn_id: ["turns"],
    document_id: ["documents"],
    fact_write_id: ["fact_writes"],
  },
  assertion: {
    candidate_id: ["knowledge_candidates", "assertions.candidate_id"],
    subject_entity_id: ["entities"],
    object_entity_id: ["entities"],
    turn_id: ["turns"],
    document_id: ["documents"],
    document_node_id: ["document_nodes"],
    fact_write_id: ["fact_writes"],
  },
  attribute: { entity_id: ["entities"], assertion_id: ["assertions", "attributes.assertion_id"], superseded_by: ["attributes"] },
  relation: {
    subject_id: ["entities"],
    object_id: ["entities"],
    assertion_id: ["assertions", "relations.assertion_id"],
    superseded_by: ["relations"],
  },
  supersession: { older_id: FACTS, newer_id: FACTS },
  instruction: {
    candidate_id: ["knowledge_candidates", "instructions.candidate_id"],
    turn_id: ["turns"],
    document_id: ["documents"],
    fact_write_id: ["fact_writes"],
    revoked_by: INPUTS,
  },
  uncertainty: {
    candidate_id: ["knowledge_candidates", "uncertainties.candidate_id"],
    entity_id: ["entities"],
    turn_id: ["turns"],
    document_id: ["documents"],
    fact_write_id: ["fact_writes"],
    resolved_by: ["assertions"],
    fact_ids: FACTS,
  },
  retraction: { source_id: [...INPUTS, "sessions", "sources"] },
};

/** The tables a column of a kind's line can name. */
export function targetsOf(spec: KindSpec, column: string): readonly Target[] {
  if (column === "id") return [spec.table];
  const targets = REFERENCE_TARGETS[spec.kind]?.[column];
  if (!targets) throw new Error(`no reference targets declared for ${spec.kind}.${column}`);
  return targets;
}

/** Where in a batch an id sits: the row's index and the column. */
export interface IdSite {
  row: number;
  column: string;
}

/** Every id the batch's rows carry, by (row, column), with the tables its column can name, and the ids per table. */
function idSites(spec: KindSpec, rows: readonly Record<string, unknown>[]) {
  const byTarget = new Map<Target, Set<string>>();
  const sites: { site: IdSite; ids: string[]; targets: readonly Target[] }[] = [];
  rows.forEach((row, index) => {
    for (const column of [...spec.ids, ...(spec.idLists ?? [])]) {
      const value = row[column];
      const ids = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === "string");
      if (ids.length === 0) continue;
      const targets = targetsOf(spec, column);
      sites.push({ site: { row: index, column }, ids, targets });
      for (const target of targets) {
        const set = byTarget.get(target) ?? new Set<string>();
        for (const id of ids) set.add(id);
        byTarget.set(target, set);
      }
    }
  });
  return { sites, byTarget };
}

/** `target|id` of the rows found, among the ids per target, that are this context's (`own`) or another's. */
async function rowsFound(
  tx: Tx,
  contextId: string,
  byTarget: Map<Target, Set<string>>,
  whose: "own" | "foreign",
  records?: Pick<PipelineRecords, "foreignWork">,
): Promise<Set<string>> {
  const parts = [...byTarget]
    .filter(([target]) => records || target !== PIPELINE_WORK)
    .map(([target, ids]) => rowsOf(target, contextId, [...ids], whose, records));
  if (parts.length === 0) return new Set();
  const found = await tx.$queryRaw<{ target: string; id: string }[]>`${Prisma.join(parts, " UNION ALL ")}`;
  return new Set(found.map((f) => `${f.target}|${f.id}`));
}

/**
 * The first (row, column) of the batch holding an id that names another context's row, or undefined. Run in the
 * transaction that wrote the batch, after the insert: a row another context inserted first under one of these ids
 * is committed by then (the insert waited on its key), and one it inserts later conflicts with ours.
 */
export async function foreignReference(
  tx: Tx,
  contextId: string,
  spec: KindSpec,
  rows: readonly Record<string, unknown>[],
  records: Pick<PipelineRecords, "foreignWork">,
): Promise<IdSite | undefined> {
  const { sites, byTarget } = idSites(spec, rows);
  if (byTarget.size === 0) return undefined;
  const foreign = await rowsFound(tx, contextId, byTarget, "foreign", records);
  if (foreign.size === 0) return undefined;
  return sites.find(({ ids, targets }) => targets.some((t) => ids.some((id) => foreign.has(`${t}|${id}`))))?.site;
}

/**
 * Which (column, id) of the batch name a row this context holds, in a table the column can name: the ids an import of
 * the context's own export keeps. The pipeline's work is not asked (a candidate's work item is kept when another of
 * the context's candidates names it).
 */
export async function ownReferences(
  tx: Tx,
  contextId: string,
  spec: KindSpec,
  rows: readonly Record<string, unknown>[],
): Promise<(column: string, id: string) => boolean> {
  const { byTarget } = idSites(spec, rows);
  const own = await rowsFound(tx, contextId, byTarget, "own");
  return (column, id) => targetsOf(spec, column).some((t) => own.has(`${t}|${id}`));
}

/** Where an erased id sits, the erasure, and whether the id is an input's or a row's read from one (docs/erasure.md). */
export type ErasedSite = IdSite & { erasureId: string; input: boolean };

/** Tombstone kinds of erased inputs (the others are rows read from them, or the pipeline's windows and batches). */
const INPUT_KINDS = new Set(["turn", "document", "fact_write", "session"]);

/**
 * The first (row, column) of the batch naming an input this context erased or a row the erasure deleted as read from
 * one (their tombstones, docs/erasure.md), with the erasure: an export taken before or during an erasure never brings
 * the erased inputs back, nor rows read from them, even with every line naming an input cut out of it.
 */
export async function erasedReference(
  tx: Tx,
  contextId: string,
  spec: KindSpec,
  rows: readonly Record<string, unknown>[],
): Promise<ErasedSite | undefined> {
  const sites = rows.flatMap((row, index) =>
    [...spec.ids, ...(spec.idLists ?? [])].flatMap((column) => {
      const value = row[column];
      const ids = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === "string");
      return ids.map((id) => ({ site: { row: index, column }, id }));
    }),
  );
  if (sites.length === 0) return undefined;
  const erased = await tx.$queryRaw<{ id: string; erasure_id: string; kind: string }[]>`
    SELECT input_id::text AS id, erasure_id::text, kind FROM erased_inputs
    WHERE context_id = ${contextId}::uuid AND input_id = ANY(${[...new Set(sites.map((s) => s.id))]}::uuid[])`;
  if (erased.length === 0) return undefined;
  const tombstoneOf = new Map(erased.map((e) => [e.id, e]));
  const hit = sites.find((s) => tombstoneOf.has(s.id))!;
  const tombstone = tombstoneOf.get(hit.id)!;
  return { ...hit.site, erasureId: tombstone.erasure_id, input: INPUT_KINDS.has(tombstone.kind) };
}

/** Rows of `target` holding one of `ids` that belong to this context or to another (a document node through its document). */
function rowsOf(
  target: Target,
  contextId: string,
  ids: string[],
  whose: "own" | "foreign",
  records?: Pick<PipelineRecords, "foreignWork">,
): Prisma.Sql {
  const [table, column = "id"] = target.split(".");
  const label = Prisma.sql`${target}::text AS target`;
  const other = Prisma.raw(whose === "own" ? "=" : "<>");
  if (target === PIPELINE_WORK) return Prisma.sql`(SELECT ${label}, w.id FROM (${records!.foreignWork(contextId, ids)}) w)`;
  if (table === "document_nodes")
    return Prisma.sql`(SELECT ${label}, n.id::text AS id FROM document_nodes n JOIN documents d ON d.id = n.document_id
      WHERE n.id = ANY(${ids}::uuid[]) AND d.context_id ${other} ${contextId}::uuid)`;
  return Prisma.sql`(SELECT ${label}, t.${Prisma.raw(column!)}::text AS id FROM ${Prisma.raw(table!)} t
    WHERE t.${Prisma.raw(column!)} = ANY(${ids}::uuid[]) AND t.context_id ${other} ${contextId}::uuid)`;
}
