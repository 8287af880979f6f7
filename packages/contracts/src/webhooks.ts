// The events a webhook can subscribe to (docs/webhooks.md). Database triggers write them
// (prisma/migrations/*_webhooks), the dispatcher in @recall/queues delivers them.
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
