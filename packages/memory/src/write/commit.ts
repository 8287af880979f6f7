// commit_artifacts: one transaction per work item writes entities, the evidence layer
// (assertions), attributes and relations, instructions, uncertainties and the commit's record
// (commit_records: what it produced), and has the pipeline announce it to truth maintenance
// (options.announce). The caller gives the transaction (a worker's is the one that records
// the stage's success and creates truth maintenance's work item; packages/pipeline work-state).
//
// Idempotent, because a queue delivers at least once: the transaction first takes an
// advisory lock on the commit, then looks for its record (one per commit). A second
// delivery, or a concurrent one, waits for the first and then finds the record and writes nothing. A commit that dies half-way (a crash, a killed
// worker, a failed statement) rolls back entirely, so its re-run starts from nothing. A commit that ran before and is
// given candidates still valid is a later pass (the rest of an input the rules committed in part, extracted again once
// a model was set): it writes only those, and its record keeps every pass.
//
// Candidates the context's review rule holds (options.hold) are marked pending_review with a review each, in the
// same transaction; approving them later commits them through a review commit of their own (reviewCommitId).
//
// A retraction of the source, even one sent before this commit ran (recorded as pending), means
// the commit writes nothing but its record (and its announcement); the two serialise on the source's lock
// (core/source-lock.ts), so a retraction never slips in while the commit is running.
import { CommittedRefs, type CommitAnnouncement } from "@recall/contracts";
import { holdLocks, lockKey, toJson, transaction, type Db, type DbOrTx, type KnowledgeCandidate, type Prisma, type Tx } from "@recall/db";
import type { AnnounceCommit } from "../core/pipeline-records";
import { CandidateWriter } from "./candidate-writer";
import { RowBuffer, liveRows, type CommitRows } from "./commit-rows";
import {
  declaredTypes,
  nameUses,
  planDisambiguations,
  type DisambiguationCheckpoint,
  type DisambiguationPlan,
  type EntityDisambiguator,
} from "../entities/entity-disambiguation";
import { EntityBook, identityLocks, liveEntities, snapshotNames, type EntityStore, type NameSnapshot } from "../entities/entity-store";
import { identityKey, lookalikeKey } from "../core/identity";
import { normaliseScope } from "../core/scope";
import { scopeSetIdOf } from "../core/scope-sets";
import { markRetractionsApplied, sourceSharedLock } from "../core/source-lock";
import { closeReviewCommit, holdForReview, type HoldingCommit } from "./review-hold";

/** The committing work item and its input (contextId, workItemId, subjectType, subjectId, turnId, documentId), and: */
export interface CommitSource extends HoldingCommit {
  factWriteId?: string;
  scope: string[];
  /** When the source was said or written: the default start of validity. */
  occurredAt: Date;
  traceId: string;
  /** Byte offset of each document node inside the document text. */
  nodeOffsets: ReadonlyMap<string, number>;
  /** Set when this commit writes approved reviews (a review commit, subject type `review`); truth maintenance closes them. */
  reviewCommitId?: string;
}

/** A source as the commit writes it: its scope's set (core/scope-sets.ts), named by every row written from it. */
export interface StoredSource extends CommitSource {
  scopeSetId: bigint | null;
}

export interface CommitOptions {
  disambiguator?: EntityDisambiguator;
  /** Decisions an earlier attempt checkpointed, and where to checkpoint new ones (see entity-disambiguation.ts). */
  checkpoint?: DisambiguationCheckpoint;
  /** The pipeline's announcement of the commit, in its transaction (the pipeline's commitAnnouncer): truth maintenance follows it. */
  announce: AnnounceCommit;
  /** Awaited inside the transaction once everything is written, just before it commits (a fault test's pause). */
  faultPoint?: () => Promise<void>;
  /** Valid candidates held for review instead (review/review-rule.ts): marked pending_review, each with a review. */
  hold?: readonly KnowledgeCandidate[];
  /** Written with a group's other commits (`prepareCommits`): its locks held and checks made, its rows buffered there. */
  batch?: CommitBatch;
}

/** Whether the commit went through before (its record), and whether its source was retracted. */
export interface CommitCheck {
  committed: boolean;
  retracted: boolean;
}

type CheckedSource = Pick<CommitSource, "workItemId" | "subjectId" | "contextId">;

/**
 * Every commit's lock and its source's, in one statement (commit locks, then source locks, each in the order given),
 * then every check in one more. Answers each work item's check.
 */
async function checkCommits(
  tx: Tx,
  sources: readonly CheckedSource[],
  thenLocks: Parameters<typeof holdLocks>[1] = [],
): Promise<Map<string, CommitCheck>> {
  if (sources.length === 0) return new Map();
  await holdLocks(tx, [
    ...sources.map((s) => ({ key: lockKey("commit", s.workItemId), mode: "exclusive" as const })),
    ...sources.map((s) => sourceSharedLock(s.subjectId)),
    ...thenLocks,
  ]);
  const rows = await tx.$queryRaw<({ id: string } & CommitCheck)[]>`
    SELECT s.id,
           EXISTS (SELECT 1 FROM commit_records c WHERE c.commit_id = s.id) AS committed,
           EXISTS (SELECT 1 FROM retractions r WHERE r.context_id = s.context_id AND r.source_id = s.subject_id) AS retracted
    FROM unnest(${sources.map((s) => s.workItemId)}::uuid[], ${sources.map((s) => s.contextId)}::uuid[],
                ${sources.map((s) => s.subjectId)}::uuid[]) AS s(id, context_id, subject_id)`;
  return new Map(rows.map(({ id, ...check }) => [id, check]));
}

/**
 * Commits written together in one transaction (a group's turns): their locks and checks made at once, the entities
 * their names match read at once, and what each writes kept until `completeCommits` writes it all, a few statements
 * for the group. Each commit decides exactly as it would alone: the entities it resolves against include what the
 * group's earlier commits created or changed.
 */
export interface CommitBatch {
  checks: ReadonlyMap<string, CommitCheck>;
  /** Each context's entities (a group's turns are of one). */
  books: ReadonlyMap<string, EntityBook>;
  rows: RowBuffer;
  committedCandidateIds: string[];
  records: Prisma.CommitRecordCreateManyInput[];
  announcements: CommitAnnouncement[];
  announce: AnnounceCommit;
}

/**
 * For commits written together: every commit's lock, then its source's, then every identity key any of their
 * candidates names (sorted), in one statement; every check in the next; then the entities those names (and their
 * look-alikes) match. Pass the answer to each commit (`CommitOptions.batch`), then `completeCommits`.
 */
export async function prepareCommits(
  tx: Tx,
  commits: readonly { source: CheckedSource; candidates: readonly KnowledgeCandidate[] }[],
  announce: AnnounceCommit,
): Promise<CommitBatch> {
  const names = new Map<string, string[]>();
  for (const { source, candidates } of commits)
    names.set(source.contextId, [...(names.get(source.contextId) ?? []), ...nameUses(candidates).map((u) => u.name)]);
  const checks = await checkCommits(
    tx,
    commits.map((c) => c.source),
    [...names].flatMap(([contextId, used]) => identityLocks(contextId, used.map(identityKey))),
  );
  const books = new Map<string, EntityBook>();
  for (const [contextId, used] of names) {
    const lookalikes = used.map(lookalikeKey).filter((k): k is string => k !== undefined);
    books.set(contextId, await EntityBook.open(tx, contextId, used.map(identityKey), lookalikes));
  }
  return { checks, books, rows: new RowBuffer(), committedCandidateIds: [], records: [], announcements: [], announce };
}

/** Writes what the batch's commits kept: entities and mentions, the facts and their evidence, records, announcements. */
export async function completeCommits(tx: Tx, batch: CommitBatch): Promise<void> {
  for (const book of batch.books.values()) await book.flush();
  await batch.rows.flush(tx);
  if (batch.committedCandidateIds.length > 0)
    await tx.knowledgeCandidate.updateMany({ where: { id: { in: batch.committedCandidateIds } }, data: { status: "committed" } });
  if (batch.records.length > 0) await tx.commitRecord.createMany({ data: batch.records });
  await batch.announce(tx, ...batch.announcements);
  batch.committedCandidateIds.length = 0;
  batch.records.length = 0;
  batch.announcements.length = 0;
}

export interface CommitSummary {
  skipped: boolean;
  /** The source was deleted (delete-by-source) before this commit ran: nothing was written. */
  retracted: boolean;
  entityIds: string[];
  assertionIds: string[];
  attributeIds: string[];
  relationIds: string[];
  instructionIds: string[];
  uncertaintyIds: string[];
  revocationCandidateIds: string[];
  /** Candidates held for review by this commit. */
  held: number;
  tokensUsed: number;
  disambiguationFailures: DisambiguationPlan["failures"];
}

/** Commits in a transaction of its own (tests, tools); workers use planCommit and commitPlanned. */
export async function commitCandidates(
  db: Db,
  source: CommitSource,
  candidates: KnowledgeCandidate[],
  options: CommitOptions,
): Promise<CommitSummary> {
  const plan = await planCommit(db, source, candidates, options);
  return transaction(db, (tx) => commitPlanned(tx, source, candidates, plan, options), { timeoutMs: 60_000 });
}

/** What the commit decides before its transaction opens: the disambiguator's answers (no model call holds row locks). */
export async function planCommit(
  db: Db,
  source: CommitSource,
  candidates: readonly KnowledgeCandidate[],
  options: Pick<CommitOptions, "disambiguator" | "checkpoint"> & { known?: NameSnapshot },
): Promise<DisambiguationPlan> {
  if (!options.disambiguator) return { decisions: new Map(), tokensUsed: 0, failures: [] };
  return planDisambiguations(db, source, nameUses(candidates), options.disambiguator, options.checkpoint, options.known);
}

/**
 * What a group's commits' names match now, in one read, for `planCommit` (its `known`): a plan is made before the
 * commit's transaction, from what the names match then, however it is read; the commit resolves them again under
 * its locks.
 */
export async function snapshotCommitNames(db: DbOrTx, contextId: string, candidates: readonly KnowledgeCandidate[]): Promise<NameSnapshot> {
  return snapshotNames(
    db,
    contextId,
    nameUses(candidates).map((u) => u.name),
  );
}

/** The commit itself, in the caller's transaction. */
export async function commitPlanned(
  tx: Tx,
  source: CommitSource,
  candidates: KnowledgeCandidate[],
  plan: DisambiguationPlan,
  options: CommitOptions,
): Promise<CommitSummary> {
  const scope = normaliseScope(source.scope);
  const stored: StoredSource = { ...source, scope, scopeSetId: await scopeSetIdOf(tx, source.contextId, scope) };
  const summary = await commitInTransaction(tx, stored, candidates, plan, options);
  return { ...summary, tokensUsed: plan.tokensUsed, disambiguationFailures: plan.failures };
}

async function commitInTransaction(
  tx: Tx,
  source: StoredSource,
  candidates: KnowledgeCandidate[],
  plan: Pick<DisambiguationPlan, "decisions">,
  options: CommitOptions,
): Promise<CommitSummary> {
  const summary = emptySummary();
  const { batch } = options;
  // Both locks first, then what they guard, read in the next statement (whose snapshot follows the waits).
  const found = batch?.checks.get(source.workItemId) ?? (await checkCommits(tx, [source])).get(source.workItemId)!;
  let later = false;
  if (found.committed) {
    // Committed before: a repeated delivery finds its candidates committed and writes nothing; a later pass (the rest
    // of an input the rules read in part, extracted again once a model was set) writes its new candidates only.
    candidates = await stillValid(tx, candidates);
    if (candidates.length === 0 && (options.hold ?? []).length === 0) return { ...summary, skipped: true };
    later = true;
  }
  if (found.retracted) {
    await markRetractionsApplied(tx, source.contextId, source.subjectId);
    if (source.reviewCommitId) await closeReviewCommit(tx, source.reviewCommitId, "withdrawn");
    await writeRecord(tx, source, { ...summary, retracted: true }, options);
    return { ...summary, retracted: true };
  }
  const { entities, rows } = writersOf(tx, source, batch);
  await entities.lock(
    source.contextId,
    nameUses(candidates).map((u) => identityKey(u.name)),
  );
  const writer = new CandidateWriter(rows, entities, source, summary, declaredTypes(candidates), plan.decisions);
  for (const candidate of candidates) await writer.write(candidate);
  if (batch) batch.committedCandidateIds.push(...candidates.map((c) => c.id));
  else if (candidates.length > 0)
    await tx.knowledgeCandidate.updateMany({ where: { id: { in: candidates.map((c) => c.id) } }, data: { status: "committed" } });
  summary.held = await holdForReview(
    tx,
    source,
    (options.hold ?? []).map((c) => c.id),
  );
  await writeRecord(tx, source, summary, options, later);
  await options.faultPoint?.();
  return summary;
}

/** Where a commit resolves entities and puts its rows: its group's book and buffer, or statements of its own. */
function writersOf(tx: Tx, source: StoredSource, batch: CommitBatch | undefined): { entities: EntityStore; rows: CommitRows } {
  const book = batch?.books.get(source.contextId);
  if (batch && book) return { entities: book, rows: batch.rows };
  return { entities: liveEntities(tx), rows: liveRows(tx) };
}

/** The candidates not yet committed (nor held), read after the commit's lock. */
async function stillValid(tx: Tx, candidates: KnowledgeCandidate[]): Promise<KnowledgeCandidate[]> {
  if (candidates.length === 0) return candidates;
  const rows = await tx.knowledgeCandidate.findMany({
    where: { id: { in: candidates.map((c) => c.id) }, status: "valid" },
    select: { id: true },
  });
  const valid = new Set(rows.map((r) => r.id));
  return candidates.filter((c) => valid.has(c.id));
}

async function writeRecord(tx: Tx, source: StoredSource, summary: CommitSummary, options: CommitOptions, later = false): Promise<void> {
  const { skipped: _skipped, tokensUsed: _tokens, disambiguationFailures: _failures, held: _held, ...produced } = summary;
  const refs: CommittedRefs = {
    subjectType: source.subjectType,
    subjectId: source.subjectId,
    // The set's id, not its pairs: a scope is stored once (core/scope-sets.ts), not in every commit's record and event.
    scopeSetId: source.scopeSetId === null ? null : String(source.scopeSetId),
    turnId: source.turnId,
    ...produced,
  };
  if (later) {
    // The record keeps every pass (audit); its top-level refs are this pass's, which truth maintenance applies.
    const before = await tx.commitRecord.findUniqueOrThrow({ where: { commitId: source.workItemId }, select: { refs: true } });
    const { earlier = [], ...previous } = CommittedRefs.parse(before.refs);
    const passes: CommittedRefs = { ...refs, earlier: [...earlier, previous] };
    await tx.commitRecord.update({ where: { commitId: source.workItemId }, data: { refs: toJson(passes) } });
    await options.announce(tx, { commitId: source.workItemId, contextId: source.contextId, traceId: source.traceId, refs });
    return;
  }
  const record = {
    commitId: source.workItemId,
    contextId: source.contextId,
    subjectType: source.subjectType,
    subjectId: source.subjectId,
    retracted: summary.retracted,
    refs: toJson(refs),
  };
  const announcement = { commitId: source.workItemId, contextId: source.contextId, traceId: source.traceId, refs };
  if (options.batch) {
    // Recorded with the group's other commits, once every one of them has written (completeCommits).
    options.batch.records.push({ ...record, committedAt: new Date() });
    options.batch.announcements.push(announcement);
    return;
  }
  await tx.commitRecord.create({ data: record });
  await options.announce(tx, announcement);
}

function emptySummary(): CommitSummary {
  return {
    skipped: false,
    retracted: false,
    entityIds: [],
    assertionIds: [],
    attributeIds: [],
    relationIds: [],
    instructionIds: [],
    uncertaintyIds: [],
    revocationCandidateIds: [],
    held: 0,
    tokensUsed: 0,
    disambiguationFailures: [],
  };
}
