// Pipeline progress as callers see it: one entry per stage, a state that ends `committed`, `failed`
// or `awaiting_model` (the rules' sure part committed, the rest waiting for a model none is
// configured for: not a failure), the extraction plan, and why candidates were rejected.
import type { Db, WorkItem } from "@recall/db";
import { PIPELINE } from "@recall/pipeline";

export type PipelineState = "queued" | "processing" | "committed" | "awaiting_model" | "failed" | "cancelled";

/** The states an input rests in until someone acts (a retry, an extract-again, a new version). */
export const SETTLED_STATES: readonly PipelineState[] = ["committed", "awaiting_model", "failed", "cancelled"];

export function pipelineState(items: WorkItem[]): PipelineState {
  if (items.some((i) => i.status === "dead")) return "failed";
  // An operator stopped a stage: the rest will not run unless it is retried.
  if (items.some((i) => i.status === "cancelled")) return "cancelled";
  if (extractingAgain(items)) return "processing";
  if (items.find((i) => i.queue === "truth_maintenance")?.status === "succeeded") return committedState(items);
  return items.some((i) => i.status !== "queued") ? "processing" : "queued";
}

/**
 * A stage before truth maintenance runs again after an earlier run was maintained (an extract-again once a model was
 * set): the input is not settled until the new run reaches memory.
 */
export function extractingAgain(items: readonly WorkItem[]): boolean {
  const unfinished = ["queued", "running", "waiting", "failed"];
  const again = items.some((i) => i.queue !== "truth_maintenance" && unfinished.includes(i.status));
  return again && items.some((i) => i.queue === "truth_maintenance" && i.status === "succeeded");
}

/** Committed; `awaiting_model` when what was committed is the rules' part and the rest waits for a model. */
export function committedState(items: readonly WorkItem[]): "committed" | "awaiting_model" {
  return items.some((i) => i.status === "awaiting_model") ? "awaiting_model" : "committed";
}

export function stageView(items: WorkItem[]) {
  return PIPELINE.map((queue) => {
    const item = items.find((i) => i.queue === queue);
    if (!item) return { queue, status: "pending", attempts: 0, started_at: null, finished_at: null };
    return {
      queue,
      work_item_id: item.id,
      status: item.status,
      attempts: item.attempts,
      started_at: item.startedAt,
      finished_at: item.finishedAt,
      tokens_used: item.tokensUsed,
      ...(item.errorClass ? { error: { class: item.errorClass, message: item.errorMessage } } : {}),
    };
  });
}

export async function documentStatus(db: Db, contextId: string, documentId: string) {
  const document = await db.document.findFirst({ where: { id: documentId, contextId }, select: { id: true, traceId: true } });
  if (!document) return undefined;
  const items = await db.workItem.findMany({ where: { contextId, subjectType: "document", subjectId: documentId } });
  const plan = await db.extractionPlan.findUnique({ where: { subjectType_subjectId: { subjectType: "document", subjectId: documentId } } });
  const candidates = await db.knowledgeCandidate.findMany({
    where: { contextId, subjectType: "document", subjectId: documentId },
    select: { status: true, kind: true, ordinal: true, validationErrors: true },
  });
  const count = (status: string) => candidates.filter((c) => c.status === status).length;
  return {
    document_id: document.id,
    trace_id: document.traceId,
    state: pipelineState(items),
    stages: stageView(items),
    extraction_plan: plan && {
      skill: plan.skillId,
      skill_source: plan.skillSource,
      purpose: plan.purpose,
      purpose_source: plan.purposeSource,
      trace: plan.trace,
    },
    candidates: {
      total: candidates.length,
      committed: count("committed"),
      invalid: count("invalid"),
      pending_review: count("pending_review"),
      invalid_details: candidates
        .filter((c) => c.status === "invalid")
        .map((c) => ({ ordinal: c.ordinal, kind: c.kind, errors: c.validationErrors })),
    },
  };
}
