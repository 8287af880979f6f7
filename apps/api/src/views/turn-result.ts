// How a turn's progress reads: its pipeline state, its extraction and the diff it committed. (The
// interactive answer's wait for it is TurnCompletion.waitForTurn.)
import type { Db, KnowledgeCandidate, Turn, WorkItem } from "@recall/db";
import { candidatePayload, itemResult, type CandidateKind } from "@recall/contracts";
import { inputState } from "@recall/pipeline";

/** The 202 answer for a stored turn whose extraction is followed at its status URL (wait: false, or the wait failed). */
export function turnAccepted(ref: { contextId: string; sessionId: string }, turn: Pick<Turn, "id" | "traceId">) {
  return { turn_id: turn.id, status_url: turnStatusUrl(ref, turn.id), extraction: { status: "pending" as const }, trace_id: turn.traceId };
}

/** Where a turn's extraction is followed (GET …/turns/{id}/status). */
export function turnStatusUrl(ref: { contextId: string; sessionId: string }, turnId: string): string {
  return `/api/v1/${ref.contextId}/sessions/${ref.sessionId}/turns/${turnId}/status`;
}

export interface TurnProgress {
  items: WorkItem[];
  /** The turn's candidates, oldest first (its answer's diff once committed). */
  candidates: KnowledgeCandidate[];
}

/** A turn's extraction so far (GET …/turns/{id}/status, MCP get_turn_status); undefined when the session holds no such turn. */
export async function turnStatusView(db: Db, ref: { contextId: string; sessionId: string; turnId: string }) {
  const turn = await db.turn.findFirst({
    where: { id: ref.turnId, sessionId: ref.sessionId, contextId: ref.contextId },
    select: { id: true, traceId: true },
  });
  if (!turn) return undefined;
  const { items, candidates } = await readTurn(db, { id: turn.id, contextId: ref.contextId });
  return { turn_id: turn.id, diff: diffView(candidates), extraction: extractionView(items, candidates), trace_id: turn.traceId };
}

/** A batch's progress (GET …/turn-batches/{id}): its turns counted per state, each failed one with its work item. */
export async function batchStatusView(db: Db, ref: { contextId: string; sessionId: string; batchId: string }) {
  const batch = await db.turnBatch.findFirst({ where: { id: ref.batchId, sessionId: ref.sessionId, contextId: ref.contextId } });
  if (!batch) return undefined;
  const turns = await db.turn.findMany({
    where: { sessionId: batch.sessionId, seq: { gte: batch.firstSeq, lte: batch.lastSeq } },
    select: { id: true, seq: true },
    orderBy: { seq: "asc" },
  });
  const items = await db.workItem.findMany({ where: { subjectType: "turn", subjectId: { in: turns.map((t) => t.id) } } });
  return { batch_id: batch.id, session_id: batch.sessionId, turns: turns.length, ...summarise(turns, items) };
}

function summarise(turns: { id: string; seq: number }[], items: WorkItem[]) {
  const bySubject = new Map<string, WorkItem[]>();
  for (const item of items) bySubject.set(item.subjectId, [...(bySubject.get(item.subjectId) ?? []), item]);
  const counts = { queued: 0, processing: 0, committed: 0, awaiting_model: 0, failed: 0, cancelled: 0 };
  const failures = [];
  for (const turn of turns) {
    const own = bySubject.get(turn.id) ?? [];
    const state = inputState(own);
    counts[state]++;
    const dead = own.find((i) => i.status === "dead");
    if (dead) {
      failures.push({
        turn_id: turn.id,
        seq: turn.seq,
        queue: dead.queue,
        work_item_id: dead.id,
        error_class: dead.errorClass,
        message: dead.errorMessage,
      });
    }
  }
  const settled = counts.committed + counts.awaiting_model + counts.failed + counts.cancelled;
  const state = settled === turns.length ? ("done" as const) : ("processing" as const);
  return { state, counts, failures };
}

/** The turn's work items and candidates, read together in one transaction. */
export async function readTurn(db: Db, turn: { id: string; contextId: string }): Promise<TurnProgress> {
  const [items, candidates] = await db.$transaction([
    db.workItem.findMany({ where: { subjectType: "turn", subjectId: turn.id } }),
    db.knowledgeCandidate.findMany({ where: { turnId: turn.id, contextId: turn.contextId }, orderBy: { ordinal: "asc" } }),
  ]);
  return { items, candidates };
}

/**
 * How far the turn's extraction got. `stage` is the stage that finished it, or, when it
 * failed, the stage it had reached (`fast` for a turn that needs a model none is set for).
 * A failure names the work item, so the caller can retry it once the cause is fixed.
 */
export function extractionView(items: WorkItem[], candidates: readonly Pick<KnowledgeCandidate, "status">[] = []) {
  const state = inputState(items);
  const extract = items.find((i) => i.queue === "extract_assertions");
  const result = itemResult("extract_assertions", extract?.payload);
  const dead = items.find((i) => i.status === "dead");
  const awaiting = state === "awaiting_model" ? items.find((i) => i.status === "awaiting_model") : undefined;
  // Committed, with candidates the context's review rule holds (docs/review.md): they reach memory once approved.
  const pendingReviews = candidates.filter((c) => c.status === "pending_review").length;
  const settled = state === "committed" && pendingReviews > 0 ? "pending_review" : state;
  return {
    status: settled === "queued" || settled === "processing" ? "pending" : settled,
    stage: result.outcomes[0]?.stage ?? result.failed?.stage ?? null,
    ...(pendingReviews > 0 ? { pending_reviews: pendingReviews } : {}),
    // The rules' sure part is committed (the diff); the rest waits for a model and an operator's extract-again.
    ...(awaiting
      ? { awaiting_model: { work_item_id: awaiting.id, reason: result.outcomes.find((o) => o.awaiting_model)?.reason ?? null } }
      : {}),
    ...(dead ? { error_class: dead.errorClass, message: dead.errorMessage, queue: dead.queue, work_item_id: dead.id } : {}),
  };
}

export function diffView(candidates: KnowledgeCandidate[]) {
  const of = <K extends CandidateKind>(kind: K) =>
    candidates.filter((c) => c.kind === kind && c.status === "committed").map((c) => candidatePayload(kind, c.payload));
  return {
    entities: of("entity").map((e) => ({ name: e.name, type: e.type, memory_category: e.memory_category })),
    attributes: of("attribute").map((a) => ({
      entity: a.entity,
      key: a.key,
      value: a.value,
      memory_category: a.memory_category,
    })),
    relations: of("relation").map((r) => ({
      subject: r.subject,
      verb: r.verb,
      object: r.object,
      memory_category: r.memory_category,
    })),
    instructions: of("instruction").map((i) => ({ label: i.label, description: i.description })),
    uncertainties: of("uncertainty").map((u) => ({ about: u.about, reason: u.reason })),
  };
}
