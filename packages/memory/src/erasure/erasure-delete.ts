// The deletes of one erasure, in its transaction, after what the erased inputs had changed was undone
// (retraction's undo: superseded values reopened, revoked instructions active again, conflicts shrunk).
// Every row that holds the inputs' text, or was derived from it, is deleted (a name they stated that other rows
// copied is rewritten there, erasure-names.ts): facts and their assertions
// (quotes), instructions, uncertainties, candidates, mentions, entities left with nothing, embeddings, the
// pipeline's records (asked of it through PipelineRecords), plans, windows' references, idempotency records whose
// stored answer names an input, the inputs themselves (document nodes first, so the search statistics
// triggers subtract them), and search term statistics no row counts any more. The ids of the rows read from the
// inputs are answered (`readFrom`) to be tombstoned with the inputs: an export's line of one names no input.
import { Prisma, type Tx } from "@recall/db";
import type { ErasedWorkItem, ForgetRequest } from "@recall/contracts";
import type { PipelineRecords } from "../core/pipeline-records";
import type { InputIds } from "./erasure-inputs";
import { forgetCopiedNames } from "./erasure-names";
import { deleteUnnamedSets, setsOfInputs } from "./erasure-scope-sets";

export type ErasureCounts = Record<string, number>;

interface Erased {
  ids: InputIds;
  all: string[];
  contextId: string;
  counts: ErasureCounts;
  /** Entities that lost a mention or a fact: removed when nothing is left to them. */
  touchedEntities: Set<string>;
  /** Work items deleted, for their jobs to be removed from the queue after the commit. */
  workItems: ErasedWorkItem[];
  /** What the erased inputs taught that was deleted with them, which the pipeline's events may name. */
  derived: NonNullable<ForgetRequest["derived"]>;
  /** Every row read from the inputs that was deleted, by its export kind: tombstoned with the inputs. */
  readFrom: DerivedRow[];
}

/** A row deleted as read from an erased input: its tombstone refuses it on import (a trimmed export has no input id). */
export interface DerivedRow {
  kind: DerivedKind;
  id: string;
}

export type DerivedKind =
  | "candidate"
  | "review"
  | "entity"
  | "entity_mention"
  | "assertion"
  | "attribute"
  | "relation"
  | "supersession"
  | "instruction"
  | "uncertainty"
  | "document_node"
  | "source";

type IdRow = { id: string };

export interface DeleteOutcome {
  counts: ErasureCounts;
  /** Erased sessions (asked for, or left without turns). */
  sessionIds: string[];
  /** Their receipt lines (`session <id> <sha256 of metadata>`), from the deleted rows. */
  sessionLines: string[];
  /** Blob files the erased documents pointed to (deleted after commit when nothing else does). */
  blobPaths: string[];
  /** Extraction windows left without turns, deleted with their work items (tombstoned, so their queued jobs end). */
  windowIds: string[];
  /** Batches of the sessions erased, deleted with their work items (tombstoned likewise). */
  batchIds: string[];
  workItems: ErasedWorkItem[];
  readFrom: DerivedRow[];
}

export async function deleteErased(tx: Tx, contextId: string, ids: InputIds, records: PipelineRecords): Promise<DeleteOutcome> {
  const run: Erased = {
    ids,
    all: [...ids.turn, ...ids.document, ...ids.fact_write],
    contextId,
    counts: {},
    touchedEntities: new Set(),
    workItems: [],
    derived: { fact: [], supersession: [], instruction: [] },
    readFrom: [],
  };
  const scopeSets = await setsOfInputs(tx, contextId, ids);
  await deleteFacts(tx, run);
  await deleteStaged(tx, run);
  await deleteEntities(tx, run);
  const windowIds = await deletePipeline(tx, run, records);
  // Before the inputs go: whether an erased input stated a surviving entity's name is read from their text.
  const copied = await forgetCopiedNames(tx, contextId, ids, [...run.touchedEntities], records.textColumns);
  run.counts.entities_renamed = copied.renamed;
  run.counts.copies_rewritten = copied.rewritten;
  const blobPaths = await deleteDocuments(tx, run);
  const { sessions, batchIds } = await deleteTurns(tx, run, records);
  const sessionIds = sessions.map((s) => s.id);
  await deleteIdempotency(tx, run, [...run.all, ...run.ids.session, ...sessionIds]);
  await count(run, "fact_writes", tx.$executeRaw`DELETE FROM fact_writes WHERE id = ANY(${ids.fact_write}::uuid[])`);
  await count(run, "search_term_stats", tx.$executeRaw`DELETE FROM search_term_stats WHERE context_id = ${contextId}::uuid AND docs <= 0`);
  await count(run, "scope_sets", deleteUnnamedSets(tx, contextId, scopeSets));
  return {
    counts: run.counts,
    sessionIds,
    sessionLines: sessions.map((s) => s.line),
    blobPaths,
    windowIds,
    batchIds,
    workItems: run.workItems,
    readFrom: run.readFrom,
  };
}

async function count(run: Erased, kind: string, deleted: Promise<number>): Promise<void> {
  const n = await deleted;
  run.counts[kind] = (run.counts[kind] ?? 0) + n;
}

/** Counts the deleted rows under their table; with `derived`, tombstones them as read from the inputs. */
async function ids(run: Erased, kind: string, rows: Promise<IdRow[]>, derived?: DerivedKind): Promise<string[]> {
  const list = (await rows).map((r) => r.id);
  run.counts[kind] = (run.counts[kind] ?? 0) + list.length;
  if (derived) run.readFrom.push(...list.map((id) => ({ kind: derived, id })));
  return list;
}

function fromSource(run: Erased): Prisma.Sql {
  const { turn, document, fact_write } = run.ids;
  return Prisma.sql`context_id = ${run.contextId}::uuid AND (turn_id = ANY(${turn}::uuid[]) OR document_id = ANY(${document}::uuid[])
    OR fact_write_id = ANY(${fact_write}::uuid[]))`;
}

async function deleteFacts(tx: Tx, run: Erased): Promise<void> {
  const assertions = await tx.$queryRaw<{ id: string; subject: string; object: string | null }[]>`
    SELECT id::text, subject_entity_id::text AS subject, object_entity_id::text AS object FROM assertions WHERE ${fromSource(run)}`;
  for (const a of assertions) [a.subject, a.object].forEach((e) => e && run.touchedEntities.add(e));
  const assertionIds = assertions.map((a) => a.id);
  const facts = [
    ...(await ids(
      run,
      "attributes",
      tx.$queryRaw`DELETE FROM attributes WHERE assertion_id = ANY(${assertionIds}::uuid[]) RETURNING id::text`,
      "attribute",
    )),
    ...(await ids(
      run,
      "relations",
      tx.$queryRaw`DELETE FROM relations WHERE assertion_id = ANY(${assertionIds}::uuid[]) RETURNING id::text`,
      "relation",
    )),
  ];
  const supersessions = await ids(
    run,
    "supersessions",
    tx.$queryRaw`DELETE FROM supersessions WHERE older_id = ANY(${facts}::uuid[]) OR newer_id = ANY(${facts}::uuid[]) RETURNING id::text`,
    "supersession",
  );
  await tx.$executeRaw`UPDATE attributes SET superseded_by = NULL WHERE superseded_by = ANY(${facts}::uuid[])`;
  await tx.$executeRaw`UPDATE relations SET superseded_by = NULL WHERE superseded_by = ANY(${facts}::uuid[])`;
  await ids(
    run,
    "uncertainties",
    tx.$queryRaw`DELETE FROM uncertainties WHERE ${fromSource(run)} OR (context_id = ${run.contextId}::uuid AND fact_ids && ${facts}::uuid[])
      RETURNING id::text`,
    "uncertainty",
  );
  await tx.$executeRaw`UPDATE uncertainties SET resolved_by = NULL, resolved = false, resolved_at = NULL WHERE resolved_by = ANY(${assertionIds}::uuid[])`;
  await ids(
    run,
    "assertions",
    tx.$queryRaw`DELETE FROM assertions WHERE id = ANY(${assertionIds}::uuid[]) RETURNING id::text`,
    "assertion",
  );
  const instructions = await ids(
    run,
    "instructions",
    tx.$queryRaw`DELETE FROM instructions WHERE ${fromSource(run)} RETURNING id::text`,
    "instruction",
  );
  await tx.$executeRaw`UPDATE instructions SET revoked_by = NULL WHERE revoked_by = ANY(${run.ids.turn}::uuid[])`;
  await deleteEmbeddings(tx, run, facts, instructions);
  run.derived = { fact: facts, supersession: supersessions, instruction: instructions };
}

async function deleteEmbeddings(tx: Tx, run: Erased, facts: string[], instructions: string[]): Promise<void> {
  await count(
    run,
    "embeddings",
    tx.$executeRaw`DELETE FROM embeddings WHERE context_id = ${run.contextId}::uuid AND (
      (owner_kind = 'fact' AND owner_id = ANY(${facts}::uuid[]))
      OR (owner_kind = 'instruction' AND owner_id = ANY(${instructions}::uuid[]))
      OR (owner_kind = 'turn' AND owner_id = ANY(${run.ids.turn}::uuid[]))
      OR (owner_kind = 'document_node' AND owner_id IN (SELECT id FROM document_nodes WHERE document_id = ANY(${run.ids.document}::uuid[]))))`,
  );
}

/** Candidates (the extractor's output, quotes included) and the mentions they or the inputs made. */
async function deleteStaged(tx: Tx, run: Erased): Promise<void> {
  // Reviews hold a reviewer's edit (text): deleted with their candidates, counted here.
  await ids(
    run,
    "reviews",
    tx.$queryRaw`DELETE FROM reviews WHERE context_id = ${run.contextId}::uuid AND subject_id = ANY(${run.all}::uuid[]) RETURNING id::text`,
    "review",
  );
  const candidates = await ids(
    run,
    "knowledge_candidates",
    tx.$queryRaw`DELETE FROM knowledge_candidates WHERE context_id = ${run.contextId}::uuid AND (subject_id = ANY(${run.all}::uuid[])
      OR turn_id = ANY(${run.ids.turn}::uuid[])
      OR document_node_id IN (SELECT id FROM document_nodes WHERE document_id = ANY(${run.ids.document}::uuid[])))
      RETURNING id::text`,
    "candidate",
  );
  const mentions = await tx.$queryRaw<{ id: string; entity: string }[]>`
    DELETE FROM entity_mentions WHERE ${fromSource(run)} OR candidate_id = ANY(${candidates}::uuid[])
    RETURNING id::text, entity_id::text AS entity`;
  await ids(run, "entity_mentions", Promise.resolve(mentions), "entity_mention");
  for (const m of mentions) run.touchedEntities.add(m.entity);
}

/** An entity with no mention, fact, assertion or uncertainty left is removed. */
async function deleteEntities(tx: Tx, run: Erased): Promise<void> {
  const touched = [...run.touchedEntities];
  await ids(
    run,
    "entities",
    tx.$queryRaw`DELETE FROM entities e WHERE e.id = ANY(${touched}::uuid[])
      AND NOT EXISTS (SELECT 1 FROM entity_mentions m WHERE m.entity_id = e.id)
      AND NOT EXISTS (SELECT 1 FROM attributes a WHERE a.entity_id = e.id)
      AND NOT EXISTS (SELECT 1 FROM relations r WHERE r.subject_id = e.id OR r.object_id = e.id)
      AND NOT EXISTS (SELECT 1 FROM assertions s WHERE s.subject_entity_id = e.id OR s.object_entity_id = e.id)
      AND NOT EXISTS (SELECT 1 FROM uncertainties u WHERE u.entity_id = e.id) RETURNING id::text`,
    "entity",
  );
}

/**
 * Review commits, plans, commit records, retraction records, windows' references, and what the pipeline keeps of the
 * inputs (asked of it: PipelineRecords.forget).
 */
async function deletePipeline(tx: Tx, run: Erased, records: PipelineRecords): Promise<string[]> {
  // The inputs' review commits are subjects of work too (their reviews went with the candidates, by cascade).
  const reviewCommits = await ids(
    run,
    "review_commits",
    tx.$queryRaw`DELETE FROM review_commits WHERE subject_id = ANY(${run.all}::uuid[]) RETURNING id::text`,
  );
  const subjects = [...run.all, ...run.ids.session, ...reviewCommits];
  await count(run, "commit_records", tx.$executeRaw`DELETE FROM commit_records WHERE subject_id = ANY(${subjects}::uuid[])`);
  await count(run, "extraction_plans", tx.$executeRaw`DELETE FROM extraction_plans WHERE subject_id = ANY(${subjects}::uuid[])`);
  await count(run, "retractions", tx.$executeRaw`DELETE FROM retractions WHERE source_id = ANY(${subjects}::uuid[])`);
  // Erased turns leave their windows; a window left empty goes with its work.
  const windows = await tx.$queryRaw<{ id: string; left: number }[]>`
    UPDATE extraction_windows SET turn_ids = ARRAY(SELECT t FROM unnest(turn_ids) AS t WHERE t <> ALL(${run.ids.turn}::uuid[]))
    WHERE turn_ids && ${run.ids.turn}::uuid[] RETURNING id::text, cardinality(turn_ids) AS left`;
  const emptyWindows = windows.filter((w) => Number(w.left) === 0).map((w) => w.id);
  const keptWindows = windows.filter((w) => Number(w.left) > 0).map((w) => w.id);
  await forgetWork(tx, run, records, { contextId: run.contextId, subjects, emptyWindows, keptWindows, derived: run.derived });
  await count(run, "extraction_windows", tx.$executeRaw`DELETE FROM extraction_windows WHERE id = ANY(${emptyWindows}::uuid[])`);
  return emptyWindows;
}

async function forgetWork(tx: Tx, run: Erased, records: PipelineRecords, request: ForgetRequest): Promise<void> {
  const forgotten = await records.forget(tx, request);
  for (const [kind, n] of Object.entries(forgotten.counts)) run.counts[kind] = (run.counts[kind] ?? 0) + n;
  run.workItems.push(...forgotten.workItems);
}

/**
 * Kept answers of idempotent requests that name an erased input (a turn's answer carries its extraction). They are
 * sealed with the client's Idempotency-Key, so they are found by the input ids recorded beside them. A context's
 * rows are scoped `context:<id>` (apps/api http/route-mount.ts).
 */
async function deleteIdempotency(tx: Tx, run: Erased, subjects: string[]): Promise<void> {
  await count(
    run,
    "idempotency_keys",
    tx.$executeRaw`DELETE FROM idempotency_keys WHERE scope = ${`context:${run.contextId}`} AND input_ids && ${subjects}::uuid[]`,
  );
}

/** Nodes first (their delete trigger subtracts them from the search statistics), then the documents; answers their blob paths. */
async function deleteDocuments(tx: Tx, run: Erased): Promise<string[]> {
  const docs = run.ids.document;
  const blobs = await tx.$queryRaw<{ path: string }[]>`
    SELECT DISTINCT blob_path AS path FROM documents WHERE id = ANY(${docs}::uuid[]) AND blob_path IS NOT NULL`;
  await ids(
    run,
    "document_nodes",
    tx.$queryRaw`DELETE FROM document_nodes WHERE document_id = ANY(${docs}::uuid[]) RETURNING id::text`,
    "document_node",
  );
  await tx.$executeRaw`UPDATE documents SET previous_version_id = NULL WHERE previous_version_id = ANY(${docs}::uuid[])`;
  const sources = await tx.$queryRaw<
    { id: string | null }[]
  >`DELETE FROM documents WHERE id = ANY(${docs}::uuid[]) RETURNING source_id::text AS id`;
  run.counts.documents = sources.length;
  const sourceIds = [...new Set(sources.map((s) => s.id).filter((id): id is string => id !== null))];
  await ids(
    run,
    "sources",
    tx.$queryRaw`DELETE FROM sources s WHERE s.id = ANY(${sourceIds}::uuid[])
      AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.source_id = s.id) RETURNING id::text`,
    "source",
  );
  return blobs.map((b) => b.path);
}

/** Turns, then the sessions asked for or left without turns, with their batches (and the batches' work items). */
async function deleteTurns(
  tx: Tx,
  run: Erased,
  records: PipelineRecords,
): Promise<{ sessions: { id: string; line: string }[]; batchIds: string[] }> {
  const touched = await tx.$queryRaw<
    { id: string }[]
  >`DELETE FROM turns WHERE id = ANY(${run.ids.turn}::uuid[]) RETURNING session_id::text AS id`;
  run.counts.turns = touched.length;
  const candidates = [...new Set([...touched.map((t) => t.id), ...run.ids.session])];
  const sessions = await tx.$queryRaw<{ id: string; line: string }[]>`
    DELETE FROM sessions s WHERE s.context_id = ${run.contextId}::uuid AND s.id = ANY(${candidates}::uuid[])
      AND NOT EXISTS (SELECT 1 FROM turns t WHERE t.session_id = s.id)
    RETURNING id::text, 'session ' || id || ' ' || encode(sha256(convert_to(metadata::text, 'UTF8')), 'hex') AS line`;
  run.counts.sessions = sessions.length;
  const sessionIds = sessions.map((x) => x.id);
  const batchIds = await ids(
    run,
    "turn_batches",
    tx.$queryRaw`DELETE FROM turn_batches WHERE session_id = ANY(${sessionIds}::uuid[]) RETURNING id::text`,
  );
  // With the sessions gone (asked for, or left without turns): the events that name them go too.
  const gone = [...batchIds, ...sessionIds];
  await forgetWork(tx, run, records, { contextId: run.contextId, subjects: gone, emptyWindows: [], keptWindows: [] });
  return { sessions, batchIds };
}
