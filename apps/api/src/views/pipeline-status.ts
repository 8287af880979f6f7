// Pipeline progress as callers see it: one entry per stage, the input's state (inputState: it ends
// `committed`, `failed` or `awaiting_model`, the rules' sure part committed, the rest waiting for a model
// none is configured for: not a failure), the commit's embedding apart, the extraction plan, and why
// candidates were rejected.
import type { Db, WorkItem } from "@recall/db";
import { PIPELINE, embeddingState, inputState } from "@recall/pipeline";

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
    // Committed once truth maintenance applied it (when document.committed fires); embedding it comes after.
    state: inputState(items),
    embedding: embeddingState(items),
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
