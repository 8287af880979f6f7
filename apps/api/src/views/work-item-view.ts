// How a work item looks on the wire: in work-item lists, document status and fact provenance.
import { z } from "zod";
import type { WorkItem } from "@recall/db";

export const Timestamp = z.iso.datetime({ offset: true });

export const WORK_STATUSES = ["queued", "running", "waiting", "succeeded", "awaiting_model", "failed", "dead", "cancelled"] as const;

export const WorkItemView = z.object({
  work_item_id: z.uuid(),
  context_id: z.uuid(),
  queue: z.string(),
  subject_type: z.string(),
  subject_id: z.uuid(),
  status: z.enum(WORK_STATUSES),
  attempts: z.number().int(),
  error: z.object({ class: z.string(), message: z.string().nullable() }).nullable(),
  tokens_used: z.number().int(),
  trace_id: z.string(),
  created_at: Timestamp,
  started_at: Timestamp.nullable(),
  finished_at: Timestamp.nullable(),
});

export function workItemView(item: WorkItem) {
  return {
    work_item_id: item.id,
    context_id: item.contextId,
    queue: item.queue,
    subject_type: item.subjectType,
    subject_id: item.subjectId,
    status: item.status,
    attempts: item.attempts,
    error: item.errorClass ? { class: item.errorClass, message: item.errorMessage } : null,
    tokens_used: item.tokensUsed,
    trace_id: item.traceId,
    created_at: item.createdAt,
    started_at: item.startedAt,
    finished_at: item.finishedAt,
  };
}
