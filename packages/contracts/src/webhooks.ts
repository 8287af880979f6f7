// The events a webhook can subscribe to (docs/webhooks.md). Every one is raised by one SQL function,
// recall_webhook_emit (prisma/migrations/*_webhooks): the triggers call it, and so do the two raised in code
// (review.pending in memory's review hold, webhook.disabled in the delivery store). The dispatcher in
// @recall/pipeline delivers them.
import { z } from "zod";

export const WEBHOOK_EVENT_TYPES = [
  "turn.committed",
  "turn.failed",
  "document.committed",
  "document.failed",
  "batch.done",
  "work_item.dead",
  "fact.superseded",
  "instruction.revoked",
  "webhook.disabled",
  "review.pending",
] as const;

export const WebhookEventType = z.enum(WEBHOOK_EVENT_TYPES);
export type WebhookEventType = z.infer<typeof WebhookEventType>;

/**
 * Every key of an event's data that holds an id, with what it names. An erasure deletes the events that name what it
 * deletes (the pipeline's PipelineRecords.forget reads this list); a key missing here would survive it, which
 * webhooks/event-ids.test.ts in @recall/pipeline checks against every emitter. A `kept` id names no input (a webhook, a
 * trace): an event naming one is deleted only for the input ids beside it.
 */
export const WEBHOOK_ID_KEYS = {
  turn_id: "input",
  document_id: "input",
  fact_write_id: "input",
  subject_id: "input",
  revoked_by_turn_id: "input",
  session_id: "input",
  batch_id: "input",
  window_id: "input",
  review_id: "input",
  work_item_id: "work_item",
  fact_id: "fact",
  superseded_by: "fact",
  supersession_id: "supersession",
  instruction_id: "instruction",
  webhook_id: "kept",
  trace_id: "kept",
} as const satisfies Record<string, "input" | "work_item" | "fact" | "supersession" | "instruction" | "kept">;
export type WebhookIdTarget = (typeof WEBHOOK_ID_KEYS)[keyof typeof WEBHOOK_ID_KEYS];
