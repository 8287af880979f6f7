// Test fixture for the memory services on a real Postgres database (cloned from the
// migrated template): stores turns and documents the way ingest does, stages
// candidates the way extraction does, and runs validation, commit and truth
// maintenance with the same functions the workers call.
import { randomUUID } from "node:crypto";
import { createDb, toJson, transaction, type Db, type KnowledgeCandidate, type Prisma } from "@recall/db";
import { DIFF_KINDS, itemResult, type ExtractionDiff, type ReviewRule } from "@recall/contracts";
import { commitAnnouncer, ensureWorkItem, writeCheckpoint, type QueueName } from "@recall/pipeline";
import { createTestDatabase, type TestDatabase } from "@recall/test-support";
import {
  commitCandidates,
  commitPlanned,
  completeCommits,
  prepareCommits,
  type CommitOptions,
  type CommitSource,
  type CommitSummary,
} from "../write/commit";
import { applyTruthMaintenance, applyTruthMaintenanceMany, type TruthMaintenanceReport } from "../truth/truth-maintenance";
import { committedRefs, committedRefsMany } from "../write/commit-records";
import { validateCandidate } from "../write/validate";
import { splitForReview } from "../review/review-rule";
import { retractSource } from "../retraction/retraction";
import { exportContext } from "../portability/export";
import type { ExportFilters } from "../portability/export-format";
import { decideReviews, type Decision, type ReviewCommitRef } from "../review/review-decisions";
import { normaliseScope } from "../core/scope";
import { scopeSetIdOf } from "../core/scope-sets";

export interface MemoryDatabase {
  db: Db;
  /** The database's URL and name, for tests that open a second client (another "worker"). */
  url: string;
  name: string;
  close(): Promise<void>;
}

/** One database per test file; each test takes its own context in it (newContext). */
export async function startMemoryDatabase(): Promise<MemoryDatabase> {
  const database: TestDatabase = await createTestDatabase();
  const db = createDb({ databaseUrl: database.url, poolMax: 5, unscoped: "bypass" });
  return {
    db,
    url: database.url,
    name: database.name,
    async close() {
      await db.$disconnect();
      await database.drop();
    },
  };
}

export interface MemoryFixture {
  db: Db;
  contextId: string;
}

export async function newContext(db: Db): Promise<MemoryFixture> {
  const context = await db.context.create({ data: { name: "memory-test" } });
  return { db, contextId: context.id };
}

/** One database for the test file (its hooks registered): answers its client, for tests that take contexts of their own. */
export function oneDatabaseForFile(): () => Db {
  let database: MemoryDatabase | undefined;
  beforeAll(async () => {
    database = await startMemoryDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });
  return () => database!.db;
}

/** Registers the usual hooks: one database for the test file, a fresh context for each test, handed to `use`. */
export function eachTestInNewContext(use: (f: MemoryFixture) => void): void {
  const db = oneDatabaseForFile();
  beforeEach(async () => {
    use(await newContext(db()));
  });
}

export interface TestSubject {
  type: "turn" | "document";
  id: string;
  contextId: string;
  text: string;
  scope: string[];
  occurredAt: Date;
  traceId: string;
  turnId?: string;
  documentId?: string;
  nodeId?: string;
}

export async function addTurn(
  f: MemoryFixture,
  input: { content: string; at: Date; scope?: string[]; role?: string; sessionId?: string; occurredAt?: Date },
): Promise<TestSubject & { sessionId: string }> {
  const sessionId = input.sessionId ?? (await f.db.session.create({ data: { contextId: f.contextId } })).id;
  const seq = (await f.db.turn.count({ where: { sessionId } })) + 1;
  const turn = await f.db.turn.create({
    data: {
      contextId: f.contextId,
      sessionId,
      seq,
      role: input.role ?? "user",
      content: input.content,
      scopeSetId: await scopeSetIdOf(f.db, f.contextId, input.scope ?? []),
      traceId: randomUUID().replace(/-/g, ""),
      createdAt: input.at,
      occurredAt: input.occurredAt,
    },
  });
  const base = { type: "turn" as const, id: turn.id, contextId: f.contextId, text: turn.content, scope: normaliseScope(input.scope ?? []) };
  return { ...base, occurredAt: turn.occurredAt ?? turn.createdAt, traceId: turn.traceId, turnId: turn.id, sessionId };
}

export async function addDocument(
  f: MemoryFixture,
  input: { text: string; at: Date; sourceId?: string; scope?: string[] },
): Promise<TestSubject> {
  const document = await f.db.document.create({
    data: {
      contextId: f.contextId,
      sourceId: input.sourceId,
      text: input.text,
      metadata: { scope: input.scope ?? [] },
      contentHash: randomUUID(),
      traceId: randomUUID().replace(/-/g, ""),
      createdAt: input.at,
      nodes: { create: [{ ordinal: 0, text: input.text, startByte: 0, endByte: Buffer.byteLength(input.text) }] },
    },
    include: { nodes: true },
  });
  const base = { type: "document" as const, id: document.id, contextId: f.contextId, text: document.text, scope: input.scope ?? [] };
  return { ...base, occurredAt: document.createdAt, traceId: document.traceId, documentId: document.id, nodeId: document.nodes[0]!.id };
}

/** A diff as a test writes it: candidates before validation fills their defaults. */
export type DiffInput = Partial<Record<keyof ExtractionDiff, object[]>>;

/** Stages the diff as pending candidates of the subject, as extract_assertions does. */
export async function stageCandidates(f: MemoryFixture, subject: TestSubject, diff: DiffInput): Promise<void> {
  const item = await workItem(f, subject, "extract_assertions");
  await f.db.knowledgeCandidate.createMany({ data: candidateRows(f, subject, item.id, diff) });
}

/** The diff's candidates as the fast model's extraction stages them, numbered in the diff's order. */
function candidateRows(f: MemoryFixture, subject: TestSubject, workItemId: string, diff: DiffInput) {
  const rows: (Prisma.KnowledgeCandidateCreateManyInput & { kind: KnowledgeCandidate["kind"]; payload: Prisma.InputJsonValue })[] = [];
  for (const [field, kind] of DIFF_KINDS) {
    for (const payload of diff[field] ?? []) {
      const common = { contextId: f.contextId, workItemId, subjectType: subject.type, subjectId: subject.id };
      const where = { documentNodeId: subject.nodeId, turnId: subject.turnId, ordinal: rows.length, kind };
      rows.push({ ...common, ...where, payload: payload as Prisma.InputJsonValue, stage: "fast", model: "openai:test-fast" });
    }
  }
  return rows;
}

/** Validates the subject's pending candidates; returns the invalid ones. */
export async function validateStaged(f: MemoryFixture, subject: TestSubject): Promise<KnowledgeCandidate[]> {
  const pending = await f.db.knowledgeCandidate.findMany({
    where: { subjectId: subject.id, status: "pending" },
    orderBy: { ordinal: "asc" },
  });
  for (const c of pending) {
    const result = validateCandidate(c.kind, c.payload, { sourceText: subject.text });
    await f.db.knowledgeCandidate.update({
      where: { id: c.id },
      data: result.ok
        ? { status: "valid", payload: result.payload as Prisma.InputJsonValue }
        : { status: "invalid", validationErrors: toJson(result.issues) },
    });
  }
  return f.db.knowledgeCandidate.findMany({ where: { subjectId: subject.id, status: "invalid" } });
}

/** Commits the subject's valid candidates, bar those `options.hold` holds for review. */
export async function commitSubject(f: MemoryFixture, subject: TestSubject, options: Partial<CommitOptions> = {}): Promise<CommitSummary> {
  const item = await workItem(f, subject, "commit_artifacts");
  const held = new Set((options.hold ?? []).map((c) => c.id));
  const valid = await f.db.knowledgeCandidate.findMany({
    where: { subjectId: subject.id, status: "valid" },
    orderBy: { ordinal: "asc" },
  });
  const candidates = valid.filter((c) => !held.has(c.id));
  const nodeOffsets = new Map(subject.nodeId ? [[subject.nodeId, 0]] : []);
  // As the worker does: the disambiguator's answers are checkpointed on the commit's work item.
  const checkpoint = {
    decided: itemResult("commit_artifacts", item.payload).disambiguations,
    save: (disambiguations: Record<string, unknown>) => writeCheckpoint(f.db, item.id, { value: { disambiguations } }),
  };
  return commitCandidates(
    f.db,
    { ...subject, subjectType: subject.type, subjectId: subject.id, workItemId: item.id, nodeOffsets },
    candidates,
    { checkpoint, announce: commitAnnouncer({ relayed: false }), ...options },
  );
}

/** Applies truth maintenance from what the subject's commit produced, as the truth_maintenance worker does. */
export async function maintainSubject(
  f: MemoryFixture,
  subject: TestSubject,
  singleValued?: ReadonlySet<string>,
): Promise<TruthMaintenanceReport> {
  const item = await workItem(f, subject, "commit_artifacts");
  const refs = await committedRefs(f.db, item.id);
  if (!refs) throw new Error(`${subject.type} ${subject.id} has not committed`);
  return applyTruthMaintenance(f.db, refs, { singleValued });
}

/** Stage, validate, commit and maintain: one subject through the whole memory path. */
export async function ingest(f: MemoryFixture, subject: TestSubject, diff: DiffInput): Promise<TruthMaintenanceReport> {
  await stageCandidates(f, subject, diff);
  const invalid = await validateStaged(f, subject);
  if (invalid.length > 0) throw new Error(`fixture diff has invalid candidates: ${JSON.stringify(invalid.map((c) => c.validationErrors))}`);
  await commitSubject(f, subject);
  return maintainSubject(f, subject);
}

/**
 * A group's subjects through the memory path as the workers write a group's turns: each subject's candidates staged
 * already validated (the same `validateCandidate`, its verdict written with the rows: a fixture diff must be valid),
 * then every commit in one transaction (prepareCommits, commitPlanned each, completeCommits) and their truth
 * maintenance in the next (applyTruthMaintenanceMany). For tests that load many subjects.
 */
export async function ingestGroup(
  f: MemoryFixture,
  group: readonly { subject: TestSubject; diff: DiffInput }[],
): Promise<TruthMaintenanceReport[]> {
  const staged: { source: CommitSource; candidates: KnowledgeCandidate[] }[] = [];
  for (const { subject, diff } of group) {
    const extract = await workItem(f, subject, "extract_assertions");
    const rows = candidateRows(f, subject, extract.id, diff).map((row) => {
      const result = validateCandidate(row.kind, row.payload, { sourceText: subject.text });
      if (!result.ok) throw new Error(`fixture diff has an invalid candidate: ${JSON.stringify(result.issues)}`);
      return { ...row, status: "valid" as const, payload: result.payload as Prisma.InputJsonValue };
    });
    const candidates = await f.db.knowledgeCandidate.createManyAndReturn({ data: rows });
    const commit = await workItem(f, subject, "commit_artifacts");
    const nodeOffsets = new Map(subject.nodeId ? [[subject.nodeId, 0]] : []);
    const source = { ...subject, subjectType: subject.type, subjectId: subject.id, workItemId: commit.id, nodeOffsets };
    staged.push({ source, candidates: candidates.sort((a, b) => a.ordinal - b.ordinal) });
  }
  const announce = commitAnnouncer({ relayed: false });
  await transaction(f.db, async (tx) => {
    const batch = await prepareCommits(tx, staged, announce);
    for (const { source, candidates } of staged) await commitPlanned(tx, source, candidates, NO_PLAN, { announce, batch });
    await completeCommits(tx, batch);
  });
  const refs = await committedRefsMany(
    f.db,
    staged.map((s) => s.source.workItemId),
  );
  return transaction(f.db, (tx) =>
    applyTruthMaintenanceMany(
      tx,
      staged.map((s) => ({ refs: refs.get(s.source.workItemId)! })),
    ),
  );
}

/** No disambiguation asked of a model: a name that fits several entities is recorded as an uncertainty. */
export const NO_PLAN = { decisions: new Map(), tokensUsed: 0, failures: [] };

/** Stage, validate and commit with the context's review rule, as the commit worker splits: answers the reviews opened. */
export async function ingestForReview(f: MemoryFixture, subject: TestSubject, diff: DiffInput, rule: ReviewRule = "required") {
  await stageCandidates(f, subject, diff);
  await validateStaged(f, subject);
  const valid = await f.db.knowledgeCandidate.findMany({ where: { subjectId: subject.id, status: "valid" }, orderBy: { ordinal: "asc" } });
  await commitSubject(f, subject, { hold: splitForReview(valid, rule, subject.scope).hold });
  return f.db.review.findMany({ where: { subjectId: subject.id }, orderBy: { seq: "asc" } });
}

/** A turn introducing Alice whose role (identity) and employer (knowledge) wait for review: their review ids, in that order. */
export async function heldIntroduction(f: MemoryFixture, input: { at: Date; content?: string; sessionId?: string }) {
  const turn = await addTurn(f, { content: input.content ?? "I'm Alice, CTO at Acme.", at: input.at, sessionId: input.sessionId });
  const reviews = await ingestForReview(f, turn, {
    attributes: [attribute("Alice", "role", "CTO", "I'm Alice, CTO")],
    relations: [relation("Alice", "works_at", "Acme", "organization", "CTO at Acme", { memory_category: "knowledge" })],
  });
  return { turn, ids: reviews.map((r) => r.id) };
}

/** Decides reviews in a transaction of their own: the outcome, and the review commits it asked to open. */
export async function decide(f: MemoryFixture, decision: Omit<Decision, "contextId">) {
  const opened: ReviewCommitRef[] = [];
  const outcome = await transaction(f.db, (tx) =>
    decideReviews(tx, { contextId: f.contextId, ...decision }, async (_tx, commit) => {
      opened.push(commit);
    }),
  );
  return { ...outcome, opened };
}

/**
 * A little of every kind an export carries: a turn's facts and an instruction, a superseded role, a document's
 * fact, reviews pending and rejected, and a retraction. Answers the inputs.
 */
export async function sampleMemory(f: MemoryFixture, at: Date) {
  const later = new Date(at.getTime() + 86_400_000);
  const text = "I'm Alice, CTO at Acme. Always respond in bullet points.";
  const turn = await addTurn(f, { content: text, at, scope: ["user=alice"] });
  await ingest(f, turn, {
    attributes: [attribute("Alice", "role", "CTO", "I'm Alice, CTO")],
    relations: [relation("Alice", "works_at", "Acme", "organization", "CTO at Acme")],
    instructions: [
      {
        label: "Bullets",
        description: "Always respond in bullet points",
        evidence: { quote: "Always respond in bullet points" },
        confidence: 0.9,
      },
    ],
  });
  const promoted = await addTurn(f, { content: "I'm CEO now.", at: later, scope: ["user=alice"], sessionId: turn.sessionId });
  await ingest(f, promoted, { attributes: [attribute("Alice", "role", "CEO", "I'm CEO now")] });
  const document = await addDocument(f, { text: "Bob is the CFO of Initech.", at });
  await ingest(f, document, { attributes: [attribute("Bob", "role", "CFO", "Bob is the CFO")] });
  const held = await heldIntroduction(f, { at: later, content: "I'm Alice, CTO at Acme. Really." });
  await decide(f, { reviewIds: [held.ids[1]!], action: "reject" });
  const wrong = await addTurn(f, { content: "I'm Carol.", at: later });
  await ingest(f, wrong, { entities: [{ name: "Carol", type: "person", memory_category: "identity", evidence: { quote: "Carol" } }] });
  await retractSource(f.db, { contextId: f.contextId, sourceType: "turn", sourceId: wrong.id, reason: "misheard" });
  return { turn, promoted, document, held: held.turn, wrong };
}

/** The context's export, a line each (the end line last). */
export async function exportLines(f: MemoryFixture, filters: ExportFilters = {}): Promise<Record<string, unknown>[]> {
  let text = "";
  await exportContext(f.db, f.contextId, filters, async (chunk) => {
    text += chunk;
  });
  return text
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Tables an import writes, each checked by tombstonedRows. */
const IMPORTED_TABLES = [
  "sessions",
  "turns",
  "fact_writes",
  "documents",
  "sources",
  "knowledge_candidates",
  "reviews",
  "entities",
  "entity_mentions",
  "assertions",
  "attributes",
  "relations",
  "supersessions",
  "instructions",
  "uncertainties",
];

/** The context's rows whose id one of its erasure tombstones names (`table id`): what must never exist. */
export async function tombstonedRows(db: Db, contextId: string): Promise<string[]> {
  const found: string[] = [];
  for (const table of IMPORTED_TABLES) {
    const rows = await db.$queryRawUnsafe<{ id: string }[]>(
      `SELECT x.id::text FROM ${table} x JOIN erased_inputs e ON e.input_id = x.id WHERE e.context_id = $1::uuid`,
      contextId,
    );
    found.push(...rows.map((r) => `${table} ${r.id}`));
  }
  return found;
}

/** The subject's work item on `queue`, made once even when two commits race for it. */
export function workItem(f: MemoryFixture, subject: TestSubject, queue: QueueName) {
  return ensureWorkItem(f.db, {
    contextId: f.contextId,
    queue,
    subjectType: subject.type,
    subjectId: subject.id,
    traceId: subject.traceId,
  });
}

/** An attribute candidate whose evidence is the whole quote (which must be in the subject's text). */
export function attribute(entity: string, key: string, value: string, quote: string, extra: Record<string, unknown> = {}) {
  return {
    entity,
    entity_type: "person",
    key,
    value,
    memory_category: "identity" as const,
    evidence: { quote },
    confidence: 0.9,
    significance: "high" as const,
    ...extra,
  };
}

export function relation(
  subject: string,
  verb: string,
  object: string,
  objectType: string,
  quote: string,
  extra: Record<string, unknown> = {},
) {
  return {
    subject,
    subject_type: "person",
    verb,
    object,
    object_type: objectType,
    memory_category: "identity" as const,
    evidence: { quote },
    confidence: 0.9,
    significance: "high" as const,
    ...extra,
  };
}

/** An instruction candidate whose evidence is its description, said word for word. */
export function instruction(label: string, description: string) {
  return { label, description, evidence: { quote: description }, confidence: 0.9 };
}
