// How a work item looks on the wire: in work-item lists, document status and fact provenance.
import { z } from "zod";
import type { WorkItem } from "@recall/db";
import { READ_LIMITS, clipped } from "@recall/memory";

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
  error: z
    .object({
      class: z.string(),
      message: z.string().nullable(),
      truncated: z.literal(true).optional().describe("set in lists when the message was cut; the item's own route answers it whole"),
    })
    .nullable(),
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

/** As in a list: the error message cut to READ_LIMITS.valueChars, so a page of 500 stays within its byte budget. */
export function workItemListView(item: WorkItem) {
  const view = workItemView(item);
  if (!view.error?.message) return view;
  const message = clipped(view.error.message, READ_LIMITS.valueChars);
  return message.truncated ? { ...view, error: { ...view.error, message: message.text, truncated: true as const } } : view;
}
