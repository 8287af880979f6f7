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

/**
 * Reads the turn's work items each time its completion notification arrives (or, if one was
 * lost, every fallbackPollMs) until it is committed or failed, or the timeout passes.
 */
export async function waitForTurn(db: Db, completion: TurnCompletion, turnId: string, timeoutMs: number): Promise<WorkItem[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const wait = completion.next(turnId);
    try {
      const items = await db.workItem.findMany({ where: { subjectType: "turn", subjectId: turnId } });
      const state = turnState(items);
      const left = deadline - Date.now();
      if (state === "committed" || state === "failed" || state === "cancelled" || left <= 0 || completion.released) return items;
      await Promise.race([wait.woken, sleep(Math.min(left, completion.fallbackPollMs))]);
    } finally {
      wait.cancel();
    }
  }
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
