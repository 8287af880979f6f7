// Webhooks (docs/webhooks.md): a context registers endpoints for its events, reads each endpoint's
// deliveries and sends one again. The signing secret is answered only when created or rotated.
import { z } from "zod";
import { WEBHOOK_EVENT_TYPES, WebhookEventType } from "@recall/contracts";
import type { Webhook } from "@recall/db";
import type { ApiDeps } from "../deps";
import { Problem } from "../http/errors";
import { NextCursor, cursorParam, limitParam, pageByCreation } from "../http/pagination";
import { defineRoute, type RouteDefinition } from "../http/route-definition";
import { WebhookService, type DeliveryRow } from "../services/webhook.service";
import { Timestamp } from "../views/work-item-view";

const ContextParams = z.object({ contextId: z.string() });
const WebhookParams = ContextParams.extend({ webhookId: z.uuid("must be a webhook id") });
const DeliveryParams = WebhookParams.extend({ deliveryId: z.uuid("must be a delivery id") });

const CreateBody = z.object({
  url: z.string().trim().max(2_048, "at most 2048 characters").describe("http(s) endpoint; private and loopback hosts are refused"),
  events: z
    .array(WebhookEventType)
    .min(1, "name at least one event")
    .max(WEBHOOK_EVENT_TYPES.length, `at most ${WEBHOOK_EVENT_TYPES.length} events`),
  description: z.string().trim().max(500, "at most 500 characters").optional(),
});

const RotateBody = z
  .object({
    keep_old_for_seconds: z
      .number()
      .int()
      .min(0)
      .max(7 * 86_400, "at most 7 days (604800)")
      .default(0)
      .describe("how long the old secret keeps signing beside the new one (0: it stops at once)"),
  })
  .strict();

const WebhookView = z.object({
  webhook_id: z.uuid(),
  url: z.string(),
  events: z.array(WebhookEventType),
  description: z.string().nullable(),
  created_at: Timestamp,
  failing_since: Timestamp.nullable().describe("first failed attempt since the last success"),
  disabled_at: Timestamp.nullable().describe(
    "set when the endpoint failed for WEBHOOK_DISABLE_AFTER_MS; it receives nothing more until POST …/enable",
  ),
  previous_secret_until: Timestamp.nullable().describe("the rotated-out secret signs beside the new one until then"),
});
const WithSecret = WebhookView.extend({ secret: z.string().describe("signs every request (Recall-Signature); shown only now") });

const DeliveryView = z.object({
  delivery_id: z.uuid(),
  event_id: z.uuid().describe("the same on every attempt and redelivery: deduplicate on it"),
  event_type: WebhookEventType,
  status: z.enum(["pending", "delivered", "failed"]).describe("failed: retries ran out (redeliver to try again)"),
  attempts: z.number().int(),
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  last_attempt_at: Timestamp.nullable(),
  next_attempt_at: Timestamp.nullable().describe("when a pending delivery is tried next"),
  delivered_at: Timestamp.nullable(),
  created_at: Timestamp,
});

const conflict = (description: string) => ({ description, schema: Problem, contentType: "application/problem+json" });

export function webhookRoutes(deps: ApiDeps): RouteDefinition[] {
  const hooks = new WebhookService(deps);
  return [create(hooks), list(hooks), getOne(hooks), remove(hooks), rotate(hooks), enable(hooks), deliveries(hooks), redeliver(hooks)];
}

function create(hooks: WebhookService): RouteDefinition {
  return defineRoute({
    method: "post",
    idempotent: true,
    path: "/webhooks",
    summary: "Register a webhook for some of this context's events; the answer shows its signing secret once",
    description:
      'Events are POSTed as JSON, signed with `Recall-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`, and retried with backoff for hours until the endpoint answers 2xx. The URL must be http(s) and must not point at a private, loopback or link-local address (400 naming `url`). 409 when the context has its maximum of webhooks.',
    tags: ["webhooks"],
    params: ContextParams,
    body: CreateBody,
    bodyExample: {
      url: "https://example.com/recall-events",
      events: ["turn.committed", "document.committed"],
      description: "search index",
    },
    responses: { 201: { description: "The webhook with its secret", schema: WithSecret }, 409: conflict("Too many webhooks") },
    handle: async ({ params, body }) => ({ status: 201, body: withSecret(await hooks.create(params.contextId, body)) }),
  });
}

function list(hooks: WebhookService): RouteDefinition {
  return defineRoute({
    method: "get",
    path: "/webhooks",
    summary: "List this context's webhooks (without secrets)",
    description: "Oldest first; a disabled webhook shows when it was disabled. A context has at most WEBHOOK_MAX_PER_CONTEXT of them.",
    tags: ["webhooks"],
    params: ContextParams,
    responses: { 200: { description: "Every webhook of the context", schema: z.object({ webhooks: z.array(WebhookView) }) } },
    handle: async ({ params }) => ({ status: 200, body: { webhooks: (await hooks.list(params.contextId)).map(webhookView) } }),
  });
}

function getOne(hooks: WebhookService): RouteDefinition {
  return defineRoute({
    method: "get",
    path: "/webhooks/:webhookId",
    summary: "One webhook (without its secret)",
    description: "404 when the webhook is not this context's.",
    tags: ["webhooks"],
    params: WebhookParams,
    responses: { 200: { description: "The webhook", schema: WebhookView } },
    handle: async ({ params }) => ({ status: 200, body: webhookView(await hooks.get(params.contextId, params.webhookId)) }),
  });
}

function remove(hooks: WebhookService): RouteDefinition {
  return defineRoute({
    method: "delete",
    idempotent: true,
    path: "/webhooks/:webhookId",
    summary: "Delete a webhook; its pending deliveries are not sent",
    description: "The webhook and its delivery records go at once. 404 when it is not this context's (or already deleted).",
    tags: ["webhooks"],
    params: WebhookParams,
    responses: { 200: { description: "The webhook as it was when deleted", schema: WebhookView } },
    handle: async ({ params }) => ({ status: 200, body: webhookView(await hooks.remove(params.contextId, params.webhookId)) }),
  });
}

function rotate(hooks: WebhookService): RouteDefinition {
  return defineRoute({
    method: "post",
    idempotent: true,
    path: "/webhooks/:webhookId/rotate-secret",
    summary: "Replace a webhook's signing secret; the answer shows the new one once",
    description:
      "Attempts from now on are signed with the new secret. With `keep_old_for_seconds` (at most 7 days) the old secret signs beside it until then: each request carries `v1=<new>,v1=<old>`, so a receiver still checking the old secret keeps accepting while it switches. Without it the old secret stops at once; a delivery the receiver refuses meanwhile is retried, or can be redelivered.",
    tags: ["webhooks"],
    params: WebhookParams,
    body: RotateBody,
    bodyExample: { keep_old_for_seconds: 3600 },
    responses: { 200: { description: "The webhook with its new secret", schema: WithSecret } },
    handle: async ({ params, body }) => ({
      status: 200,
      body: withSecret(await hooks.rotateSecret(params.contextId, params.webhookId, body.keep_old_for_seconds)),
    }),
  });
}

function enable(hooks: WebhookService): RouteDefinition {
  return defineRoute({
    method: "post",
    idempotent: true,
    path: "/webhooks/:webhookId/enable",
    summary: "Take events again on a webhook that was disabled for failing (or confirm an enabled one)",
    description:
      "Clears `disabled_at` and `failing_since`. Deliveries left pending when it was disabled are tried again at once, for another full retry window; events that happened while it was disabled were not kept for it (redeliver older failed ones by id). An enabled webhook answers as it is.",
    tags: ["webhooks"],
    params: WebhookParams,
    responses: { 200: { description: "The webhook", schema: WebhookView } },
    handle: async ({ params }) => ({ status: 200, body: webhookView(await hooks.enable(params.contextId, params.webhookId)) }),
  });
}

function deliveries(hooks: WebhookService): RouteDefinition {
  return defineRoute({
    method: "get",
    path: "/webhooks/:webhookId/deliveries",
    summary: "A webhook's deliveries, newest first: status, attempts, last answer and next try",
    description: "One delivery per event the webhook subscribed to. Response bodies are not kept beyond the last error line.",
    tags: ["webhooks"],
    params: WebhookParams,
    query: z.object({ limit: limitParam(50, 100), cursor: cursorParam("time") }),
    responses: {
      200: { description: "A page of deliveries", schema: z.object({ deliveries: z.array(DeliveryView), next_cursor: NextCursor }) },
    },
    handle: async ({ params, query }) => {
      const rows = await hooks.deliveries(params.contextId, params.webhookId, query.limit, query.cursor);
      const page = pageByCreation(rows, query.limit);
      return { status: 200, body: { deliveries: page.items.map(deliveryView), next_cursor: page.nextCursor } };
    },
  });
}

function redeliver(hooks: WebhookService): RouteDefinition {
  return defineRoute({
    method: "post",
    idempotent: true,
    path: "/webhooks/:webhookId/deliveries/:deliveryId/redeliver",
    summary: "Send a delivery again, with the same event id, as soon as a worker is free",
    description:
      "Works on delivered, failed and pending deliveries alike; the delivery is retried for another full window if it fails. 409 when the webhook is disabled.",
    tags: ["webhooks"],
    params: DeliveryParams,
    responses: { 202: { description: "Queued to be sent again", schema: DeliveryView }, 409: conflict("The webhook is disabled") },
    handle: async ({ params }) => ({
      status: 202,
      body: deliveryView(await hooks.redeliver(params.contextId, params.webhookId, params.deliveryId)),
    }),
  });
}

function webhookView(hook: Webhook) {
  return {
    webhook_id: hook.id,
    url: hook.url,
    events: hook.events.map((e) => WebhookEventType.parse(e)),
    description: hook.description,
    created_at: hook.createdAt,
    failing_since: hook.failingSince,
    disabled_at: hook.disabledAt,
    previous_secret_until: hook.previousSecretUntil && hook.previousSecretUntil > new Date() ? hook.previousSecretUntil : null,
  };
}

function withSecret(hook: Webhook) {
  return { ...webhookView(hook), secret: hook.secret };
}

function deliveryView(row: DeliveryRow) {
  return {
    delivery_id: row.id,
    event_id: row.eventId,
    event_type: WebhookEventType.parse(row.event.type),
    status: z.enum(["pending", "delivered", "failed"]).parse(row.status),
    attempts: row.attempts,
    last_status_code: row.lastStatusCode,
    last_error: row.lastError,
    last_attempt_at: row.lastAttemptAt,
    next_attempt_at: row.status === "pending" ? row.nextAttemptAt : null,
    delivered_at: row.deliveredAt,
    created_at: row.createdAt,
  };
}
