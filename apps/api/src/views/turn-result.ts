// Interactive turns are synchronous: the answer waits until the turn's work has
// passed truth maintenance (or died), so the next read already reflects it.
import type { Db, KnowledgeCandidate, WorkItem } from "@recall/db";
import { candidatePayload, stageResult, type CandidateKind } from "@recall/contracts";
import { truthMaintained } from "@recall/memory";
import { pipelineState, type PipelineState } from "./pipeline-status";
import type { TurnCompletion } from "../services/turn-completion";

/**
 * A turn counts as committed once truth maintenance has applied it, even while (or if)
 * embedding its text for vector search is still retrying: the caller's next read already
 * reflects it, and a failing embedding provider must not hold up or fail the conversation.
 */
export function turnState(items: WorkItem[]): PipelineState {
  const maintenance = items.find((i) => i.queue === "truth_maintenance");
  return maintenance && truthMaintained(maintenance) ? "committed" : pipelineState(items);
}

export interface TurnProgress {
  items: WorkItem[];
  /** The turn's candidates, oldest first (its answer's diff once committed). */
  candidates: KnowledgeCandidate[];
}

/**
 * Waits for the turn's completion notification (`first`, taken before its job was queued), or, if
 * one was lost, fallbackPollMs, then reads the turn's work items and candidates in one transaction;
 * again until it is committed or failed, or the timeout passes.
 */
export async function waitForTurn(
  db: Db,
  completion: TurnCompletion,
  turn: { id: string; contextId: string },
  timeoutMs: number,
  first: { woken: Promise<void>; cancel(): void },
): Promise<TurnProgress> {
  const deadline = Date.now() + timeoutMs;
  let wait = first;
  try {
    for (;;) {
      const left = deadline - Date.now();
      if (left > 0 && !completion.released) await Promise.race([wait.woken, sleep(Math.min(left, completion.fallbackPollMs))]);
      // The next notification is listened for before reading, so a commit landing during the read is not missed.
      wait.cancel();
      wait = completion.next(turn.id);
      const progress = await readTurn(db, turn);
      const state = turnState(progress.items);
      if (state === "committed" || state === "failed" || state === "cancelled" || Date.now() >= deadline || completion.released)
        return progress;
    }
  } finally {
    wait.cancel();
  }
}

/** A turn's extraction so far (GET …/turns/{id}/status, MCP get_turn_status); undefined when the session holds no such turn. */
export async function turnStatusView(db: Db, ref: { contextId: string; sessionId: string; turnId: string }) {
  const turn = await db.turn.findFirst({
    where: { id: ref.turnId, sessionId: ref.sessionId, contextId: ref.contextId },
    select: { id: true, traceId: true },
  });
  if (!turn) return undefined;
  const { items, candidates } = await readTurn(db, { id: turn.id, contextId: ref.contextId });
  return { turn_id: turn.id, diff: diffView(candidates), extraction: extractionView(items), trace_id: turn.traceId };
}

async function readTurn(db: Db, turn: { id: string; contextId: string }): Promise<TurnProgress> {
  const [items, candidates] = await db.$transaction([
    db.workItem.findMany({ where: { subjectType: "turn", subjectId: turn.id } }),
    db.knowledgeCandidate.findMany({ where: { turnId: turn.id, contextId: turn.contextId }, orderBy: { ordinal: "asc" } }),
  ]);
  return { items, candidates };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/**
 * How far the turn's extraction got. `stage` is the stage that finished it, or, when it
 * failed, the stage it had reached (`fast` for a turn that needs a model none is set for).
 * A failure names the work item, so the caller can retry it once the cause is fixed.
 */
export function extractionView(items: WorkItem[]) {
  const state = turnState(items);
  const extract = items.find((i) => i.queue === "extract_assertions");
  const result = stageResult("extract_assertions", extract?.payload);
  const dead = items.find((i) => i.status === "dead");
  return {
    status: state === "committed" || state === "failed" || state === "cancelled" ? state : "pending",
    stage: result.outcomes[0]?.stage ?? result.failed?.stage ?? null,
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
