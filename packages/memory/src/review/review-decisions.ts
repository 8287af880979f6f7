// Approving and rejecting reviews (docs/review.md), in the caller's transaction. The reviews are locked first, in
// their holding order, so two decisions on one review serialise: the second sees the first's outcome (the same
// decision again is answered as it stands; the opposite one is refused). Approved reviews of one input are grouped
// into one review commit, which the caller's `openCommit` turns into a commit_artifacts work item in the same
// transaction (memory knows no queues): nothing is approved without the work that commits it.
import { candidatePayload, type CandidateKind, DomainError } from "@recall/contracts";
import { Prisma, toJson, type Tx } from "@recall/db";
import { validateEdited, type ValidationIssue } from "../write/validate";
import { versionsToRetireAfterRejection } from "./review-versions";

/** Fields a reviewer may change, per kind; the evidence (quote and span) and confidence always stay the source's. */
export const EDITABLE_FIELDS: Record<CandidateKind, readonly string[]> = {
  entity: ["name", "type", "memory_category"],
  attribute: ["entity", "key", "value", "memory_category", "valid_from", "valid_to"],
  relation: ["subject", "verb", "object", "memory_category", "valid_from", "valid_to"],
  instruction: ["label", "description"],
  uncertainty: ["about", "reason"],
  revocation: ["matches"],
};

export const REVIEW_STATUSES = ["pending", "approved", "committed", "rejected", "withdrawn"] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

export interface ReviewCommitRef {
  id: string;
  contextId: string;
  subjectType: "turn" | "document";
  subjectId: string;
}

export interface Decision {
  contextId: string;
  /** In any order; decided in holding order. */
  reviewIds: readonly string[];
  action: "approve" | "reject";
  /** One review's edited fields (approve only). */
  edit?: Readonly<Record<string, string | null>>;
  note?: string;
}

export interface DecisionOutcome {
  /** Reviews this decision changed. */
  decided: string[];
  /** Reviews that already stood as asked (a repeated decision). */
  unchanged: string[];
  /** Reviews whose state refuses the decision (an approved one cannot be rejected, nor a rejected one approved). */
  refused: { id: string; status: ReviewStatus }[];
  /** Review ids not of this context: when there are any, nothing was decided. */
  missing: string[];
  commits: ReviewCommitRef[];
}

/** A reviewer's edit that the candidate's rules refuse: a 400 naming each field of the body's edit (`body.edit.role`). */
export class ReviewEditRefusedError extends DomainError {
  override name = "ReviewEditRefusedError";
  constructor(issues: ValidationIssue[]) {
    const fields = issues.map((i) => ({ field: `body.${i.field}`, message: i.message }));
    super("invalid", fields.map((f) => `${f.field}: ${f.message}`).join("; "), { fields });
  }
}

interface Locked {
  id: string;
  status: ReviewStatus;
  candidate_id: string;
  subject_type: "turn" | "document";
  subject_id: string;
  kind: CandidateKind;
  payload: Prisma.JsonValue;
}

const SETTLED: Record<Decision["action"], ReviewStatus[]> = {
  approve: ["approved", "committed"],
  reject: ["rejected"],
};

export async function decideReviews(
  tx: Tx,
  decision: Decision,
  openCommit: (tx: Tx, commit: ReviewCommitRef) => Promise<void>,
): Promise<DecisionOutcome> {
  const ids = [...new Set(decision.reviewIds)];
  const rows = await tx.$queryRaw<Locked[]>`
    SELECT r.id::text, r.status, r.candidate_id::text, r.subject_type, r.subject_id::text, c.kind::text AS kind, c.payload
    FROM reviews r JOIN knowledge_candidates c ON c.id = r.candidate_id AND c.context_id = r.context_id
    WHERE r.context_id = ${decision.contextId}::uuid AND r.id = ANY(${ids}::uuid[])
    ORDER BY r.seq FOR UPDATE OF r`;
  const found = new Set(rows.map((r) => r.id));
  const outcome: DecisionOutcome = { decided: [], unchanged: [], refused: [], missing: ids.filter((id) => !found.has(id)), commits: [] };
  // An id that is not the context's decides nothing at all: the caller answers it as not found.
  if (outcome.missing.length > 0) return outcome;
  const open: Locked[] = [];
  const edits = decision.edit !== undefined && Object.keys(decision.edit).length > 0;
  for (const row of rows) {
    // An edit is taken with the approval that commits it; approving again with one would drop it unsaid.
    if (edits && SETTLED[decision.action].includes(row.status)) outcome.refused.push({ id: row.id, status: row.status });
    else if (SETTLED[decision.action].includes(row.status)) outcome.unchanged.push(row.id);
    else if (row.status !== "pending") outcome.refused.push({ id: row.id, status: row.status });
    else open.push(row);
  }
  if (open.length === 0) return outcome;
  if (decision.action === "reject") outcome.commits = await reject(tx, decision, open, openCommit);
  else outcome.commits = await approve(tx, decision, open, openCommit);
  outcome.decided = open.map((r) => r.id);
  return outcome;
}

/** Rejected reviews never commit; a document whose last open review this was may now retire its previous version. */
async function reject(
  tx: Tx,
  decision: Decision,
  rows: readonly Locked[],
  openCommit: (tx: Tx, commit: ReviewCommitRef) => Promise<void>,
): Promise<ReviewCommitRef[]> {
  const ids = rows.map((r) => r.id);
  await tx.$executeRaw`UPDATE reviews SET status = 'rejected', decided_at = now(), note = ${decision.note ?? null}
    WHERE id = ANY(${ids}::uuid[])`;
  await tx.$executeRaw`UPDATE knowledge_candidates SET status = 'rejected' WHERE id = ANY(${rows.map((r) => r.candidate_id)}::uuid[])`;
  const documents = rows.filter((r) => r.subject_type === "document").map((r) => r.subject_id);
  const retiring = await versionsToRetireAfterRejection(tx, documents);
  // An empty review commit: it writes nothing, and its truth maintenance retires the previous version.
  return commitPerInput(
    tx,
    decision.contextId,
    retiring.map((id) => ({ id: null, subject_type: "document" as const, subject_id: id })),
    openCommit,
  );
}

async function approve(
  tx: Tx,
  decision: Decision,
  rows: readonly Locked[],
  openCommit: (tx: Tx, commit: ReviewCommitRef) => Promise<void>,
): Promise<ReviewCommitRef[]> {
  if (decision.edit && Object.keys(decision.edit).length > 0) await applyEdit(tx, rows, decision.edit);
  await tx.$executeRaw`UPDATE reviews SET status = 'approved', decided_at = now(), note = ${decision.note ?? null}
    WHERE id = ANY(${rows.map((r) => r.id)}::uuid[])`;
  await tx.$executeRaw`UPDATE knowledge_candidates SET status = 'approved' WHERE id = ANY(${rows.map((r) => r.candidate_id)}::uuid[])`;
  return commitPerInput(tx, decision.contextId, rows, openCommit);
}

/** An approved review to commit, or (id null) an input's commit with none: a rejection's retirement of a previous version. */
type ToCommit = Pick<Locked, "subject_type" | "subject_id"> & { id: string | null };

/** One review commit per input for approved reviews (given in holding order), so an earlier input's approvals queue first. */
async function commitPerInput(
  tx: Tx,
  contextId: string,
  rows: readonly ToCommit[],
  openCommit: (tx: Tx, commit: ReviewCommitRef) => Promise<void>,
): Promise<ReviewCommitRef[]> {
  const byInput = new Map<string, ToCommit[]>();
  for (const row of rows) byInput.set(row.subject_id, [...(byInput.get(row.subject_id) ?? []), row]);
  const commits: ReviewCommitRef[] = [];
  for (const [subjectId, own] of byInput) {
    const commit = await tx.reviewCommit.create({ data: { contextId, subjectType: own[0]!.subject_type, subjectId } });
    const reviewIds = own.flatMap((r) => (r.id ? [r.id] : []));
    if (reviewIds.length > 0) await tx.$executeRaw`UPDATE reviews SET commit_id = ${commit.id}::uuid WHERE id = ANY(${reviewIds}::uuid[])`;
    const ref = { id: commit.id, contextId, subjectType: own[0]!.subject_type, subjectId };
    await openCommit(tx, ref);
    commits.push(ref);
  }
  return commits;
}

/**
 * Approved reviews with no commit of their own: those an import brought (review commits are not exported, the
 * approval is). The oldest `limit` of them get a review commit per input, as at approval; the caller repeats while
 * a full page comes back. Locked, so of two imports at once each review gets one commit.
 */
export async function commitApprovedReviews(
  tx: Tx,
  contextId: string,
  limit: number,
  openCommit: (tx: Tx, commit: ReviewCommitRef) => Promise<void>,
): Promise<{ reviews: number; commits: ReviewCommitRef[] }> {
  const rows = await tx.$queryRaw<ToCommit[]>`
    SELECT id::text, subject_type, subject_id::text FROM reviews
    WHERE context_id = ${contextId}::uuid AND status = 'approved' AND commit_id IS NULL
    ORDER BY seq LIMIT ${limit} FOR UPDATE`;
  return { reviews: rows.length, commits: await commitPerInput(tx, contextId, rows, openCommit) };
}

/** The edited candidate is what commits; the review keeps each changed field's value before and after. */
async function applyEdit(tx: Tx, rows: readonly Locked[], edit: Readonly<Record<string, string | null>>): Promise<void> {
  if (rows.length !== 1) throw new ReviewEditRefusedError([{ field: "edit", message: "an edit applies to one review at a time" }]);
  const row = rows[0]!;
  const allowed = EDITABLE_FIELDS[row.kind];
  const unknown = Object.keys(edit).filter((f) => !allowed.includes(f));
  if (unknown.length > 0) {
    const message =
      allowed.length > 0 ? `a ${row.kind} review edits only ${allowed.join(", ")}` : `a ${row.kind} review has nothing to edit`;
    throw new ReviewEditRefusedError(unknown.map((f) => ({ field: `edit.${f}`, message })));
  }
  const before = candidatePayload(row.kind, row.payload) as Record<string, unknown>;
  const merged: Record<string, unknown> = { ...before };
  for (const [field, value] of Object.entries(edit)) {
    if (value === null) delete merged[field];
    else merged[field] = value;
  }
  const checked = validateEdited(row.kind, merged);
  if (!checked.ok) throw new ReviewEditRefusedError(checked.issues.map((i) => ({ ...i, field: `edit.${i.field}` })));
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const field of Object.keys(edit)) {
    const from = before[field] ?? null;
    const to = checked.payload[field] ?? null;
    if (from !== to) changes[field] = { from, to };
  }
  if (Object.keys(changes).length === 0) return;
  await tx.knowledgeCandidate.update({ where: { id: row.candidate_id }, data: { payload: toJson(checked.payload) } });
  await tx.review.update({ where: { id: row.id }, data: { edit: toJson(changes) } });
}
