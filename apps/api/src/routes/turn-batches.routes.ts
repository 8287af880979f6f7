// Asynchronous turns: a turn's status by id (for wait: false), a batch of up to 500 turns of one
// session (history import) answered 202 at once, and the batch's status as counts per state.
import { notFound } from "@recall/contracts";
import type { ApiDeps } from "../deps";
import { defineRoute, type RouteDefinition } from "../http/route-definition";
import { batchStatusView, turnStatusView } from "../views/turn-result";
import { BatchAccepted, BatchParams, BatchStatus, SessionParams, TurnBatchBody, TurnParams, TurnResult } from "./sessions.schemas";
import { EXAMPLES } from "./openapi-examples";

export function turnBatchRoutes(deps: ApiDeps): RouteDefinition[] {
  return [turnStatus(deps), postBatch(deps), batchStatus(deps)];
}

function turnStatus(deps: ApiDeps): RouteDefinition {
  return defineRoute({
    method: "get",
    path: "/sessions/:sessionId/turns/:turnId/status",
    summary: "A turn's extraction: pending, committed (with its diff) or failed (with the work item to retry)",
    description:
      "Follow a turn posted with `wait: false` (its `status_url`) or one whose answer was 202. Once `committed`, the diff is what the turn taught; `failed` names the work item to retry once the cause is fixed.",
    tags: ["sessions"],
    params: TurnParams,
    responses: { 200: { description: "The turn's extraction so far", schema: TurnResult } },
    handle: async ({ params }) => {
      const status = await turnStatusView(deps.db, params);
      if (!status) throw notFound("turn");
      return { status: 200, body: status };
    },
  });
}

function postBatch(deps: ApiDeps): RouteDefinition {
  return defineRoute({
    method: "post",
    idempotent: true,
    path: "/sessions/:sessionId/turns/batch",
    summary: "Import up to 500 turns of one session, in order; answers 202 at once",
    description:
      "Turns get consecutive sequence numbers in the order given. The heuristics finish what they can turn by turn; the rest are extracted in windows of consecutive turns, one model call each. 409 session_erased when an erasure deleted the session.",
    tags: ["sessions"],
    params: SessionParams,
    body: TurnBatchBody,
    bodyExample: EXAMPLES.batch.request,
    responses: { 202: { description: "Stored and queued", schema: BatchAccepted, example: EXAMPLES.batch.response } },
    handle: async ({ params, body }) => {
      const stored = await deps.turnService.addBatch(params.contextId, params.sessionId, body.turns);
      const status_url = `/api/v1/${params.contextId}/sessions/${params.sessionId}/turn-batches/${stored.batchId}`;
      return { status: 202, body: { batch_id: stored.batchId, turn_ids: stored.turnIds, status_url, trace_id: stored.traceId } };
    },
  });
}

function batchStatus(deps: ApiDeps): RouteDefinition {
  return defineRoute({
    method: "get",
    path: "/sessions/:sessionId/turn-batches/:batchId",
    summary: "A batch's progress: turns per state, and each failed turn with its work item",
    description:
      "Follow a batch posted to …/turns/batch (its `status_url`). `state` is `done` once every turn is committed, failed or cancelled; each failed turn names its work item to retry.",
    tags: ["sessions"],
    params: BatchParams,
    responses: { 200: { description: "Counts per state and failures", schema: BatchStatus } },
    handle: async ({ params }) => {
      const status = await batchStatusView(deps.db, params);
      if (!status) throw notFound("turn batch");
      return { status: 200, body: status };
    },
  });
}
