// Operators list work, read one item with every attempt, retry one or many, cancel. The same
// routes are mounted per context (its API key; ids of other contexts are not found) and across
// contexts under /api/v1/admin (the admin key). The rules live in WorkItemService.
import { notFound } from "@recall/contracts";
import { z } from "zod";
import type { ApiDeps } from "../deps";
import { Problem } from "../http/errors";
import { encodeCursor } from "../http/pagination";
import { defineRoute, type RouteDefinition } from "../http/route-definition";
import { ITEMS_BYTES, countWithin } from "@recall/memory";
import { WorkItemView, workItemListView, workItemView } from "../views/work-item-view";
import { extractAgainService } from "../services/extract-again";
import { extractAgainView } from "../views/extract-again-view";
import {
  ExtractAgainBody,
  ExtractAgainReport,
  ListQuery,
  RetryManyBody,
  RetryManyReport,
  RetryQuery,
  WorkItemDetail,
  WorkItemPage,
  filterOf,
  workItemDetail,
} from "./work-items.schemas";

export type WorkItemMount = "context" | "admin";

const conflict = { description: "Not in a state this allows", schema: Problem, contentType: "application/problem+json" };

const paramsFor = (mount: WorkItemMount) =>
  mount === "context"
    ? z.object({ contextId: z.string(), workItemId: z.uuid("must be a work item id") })
    : z.object({ workItemId: z.uuid("must be a work item id") });

/** The context a request is confined to: its path's on a context mount, none on the admin mount. */
const scopeOf = (params: unknown): string | undefined => (params as { contextId?: string } | undefined)?.contextId;

export function workItemRoutes(deps: ApiDeps, mount: WorkItemMount = "context"): RouteDefinition[] {
  const routes = [list(deps, mount), retryMany(deps, mount), getOne(deps, mount), retryOne(deps, mount), cancel(deps, mount)];
  return mount === "admin" ? [...routes, extractAgain(deps)] : routes;
}

/** Admin only: running a model costs the deployment money, so its operator decides (never run by itself). */
function extractAgain(deps: ApiDeps): RouteDefinition {
  return defineRoute({
    method: "post",
    idempotent: true,
    path: "/work-items/extract-again",
    summary: "Extract again, with the model now configured, the inputs awaiting one (dry_run: count calls and estimate cost)",
    description:
      "Inputs the rules committed in part with no model configured are `awaiting_model`. Once a model is set, this queues them " +
      "(at most 1,000 a call, fair between contexts, in the background lane); the model's reading commits only what the rules had " +
      "not. `dry_run: true` counts the inputs and model calls (turns in windows as an import groups them) and estimates tokens " +
      "and cost from RECALL_MODEL_PRICES_JSON. Nothing runs by itself when a model appears. A real run with no model is a 409 `no_model`.",
    tags: ["operations"],
    body: ExtractAgainBody,
    responses: { 200: { description: "What was (or would be) queued", schema: ExtractAgainReport }, 409: conflict },
    handle: async ({ body }) => {
      const report = await extractAgainService(deps).call({ contextId: body.context_id, dryRun: body.dry_run });
      return { status: 200, body: extractAgainView(report) };
    },
  });
}

function list(deps: ApiDeps, mount: WorkItemMount): RouteDefinition {
  return defineRoute({
    method: "get",
    path: "/work-items",
    summary: "List work items, newest first, by status (several at once), queue, error class, document, session and time",
    description:
      "Each stage run of a turn or document is a work item (queued, running, waiting, succeeded, failed, dead, cancelled), with its last error class and message and trace id. Filter by several statuses at once, e.g. `status=failed,dead`.",
    tags: ["operations"],
    params: mount === "context" ? z.object({ contextId: z.string() }) : undefined,
    query: ListQuery,
    responses: { 200: { description: "A page of work items", schema: WorkItemPage } },
    handle: async ({ params, query }) => {
      const filter = filterOf(query, scopeOf(params));
      const page = await deps.workItems.list(filter, { limit: query.limit, after: query.cursor });
      // Bounded like every read answer (docs/limits.md): each error message clipped, and the page ends at 1 MB with
      // the next page after the last item kept. The item's own route answers its whole messages.
      const views = page.items.map(workItemListView);
      const kept = countWithin(views, ITEMS_BYTES);
      const last = page.items[kept - 1];
      const next = kept < views.length && last ? { k: last.createdAt.toISOString(), id: last.id } : page.next;
      return { status: 200, body: { work_items: views.slice(0, kept), next_cursor: encodeCursor(next) } };
    },
  });
}

function getOne(deps: ApiDeps, mount: WorkItemMount): RouteDefinition {
  return defineRoute({
    method: "get",
    path: "/work-items/:workItemId",
    summary: "One work item with every attempt: error class and message, budget used, timings, trace id",
    description:
      "Every attempt keeps its error class (provider, budget, validation, no_provider, internal, abandoned), message, tokens and wall time, so a failure can be understood before it is retried.",
    tags: ["operations"],
    params: paramsFor(mount),
    responses: { 200: { description: "The work item", schema: WorkItemDetail } },
    handle: async ({ params }) => {
      const item = await deps.workItems.get(params.workItemId, scopeOf(params));
      if (!item) throw notFound("work item");
      return { status: 200, body: workItemDetail(item) };
    },
  });
}

function retryOne(deps: ApiDeps, mount: WorkItemMount): RouteDefinition {
  return defineRoute({
    method: "post",
    idempotent: true,
    path: "/work-items/:workItemId/retry",
    summary: "Retry a failed, dead or cancelled work item from its kept input (from=extract: extract the subject again)",
    description: "Stages that finished before it are reused. `from=extract` is refused once the subject is committed.",
    tags: ["operations"],
    params: paramsFor(mount),
    query: RetryQuery,
    responses: { 202: { description: "Queued again", schema: WorkItemView }, 409: conflict },
    handle: async ({ params, query }) => {
      const item = await deps.workItems.retry(params.workItemId, { contextId: scopeOf(params), from: query.from });
      return { status: 202, body: workItemView(item) };
    },
  });
}

function retryMany(deps: ApiDeps, mount: WorkItemMount): RouteDefinition {
  return defineRoute({
    method: "post",
    idempotent: true,
    path: "/work-items/retries",
    summary: "Retry every failed or dead work item a filter matches (dry_run: only count them)",
    description:
      "The same filters as the list. Items that cannot be retried are reported in `skipped` with the reason; `dry_run: true` only counts them. Each retry keeps the item's input and reuses the stages that finished.",
    tags: ["operations"],
    params: mount === "context" ? z.object({ contextId: z.string() }) : undefined,
    body: RetryManyBody,
    responses: { 200: { description: "What was (or would be) retried", schema: RetryManyReport } },
    handle: async ({ params, body }) => {
      const report = await deps.workItems.retryMany(filterOf(body, scopeOf(params)), { dryRun: body.dry_run, from: body.from });
      return {
        status: 200,
        body: {
          dry_run: report.dryRun,
          matched: report.matched,
          retried: report.retried.map(workItemView),
          skipped: report.skipped.map((s) => ({ work_item_id: s.workItemId, reason: s.reason })),
        },
      };
    },
  });
}

function cancel(deps: ApiDeps, mount: WorkItemMount): RouteDefinition {
  return defineRoute({
    method: "post",
    idempotent: true,
    path: "/work-items/:workItemId/cancel",
    summary: "Cancel a queued or failed work item: it is not run again (until retried) and its status says so",
    description:
      "For work that should not run (a document posted by mistake, a provider that will not recover). The item and its subject report `cancelled` until someone retries it. Queued, failed and dead work can be cancelled; anything else is a 409 naming its status.",
    tags: ["operations"],
    params: paramsFor(mount),
    responses: { 200: { description: "Cancelled", schema: WorkItemView }, 409: conflict },
    handle: async ({ params }) => {
      const item = await deps.workItems.cancel(params.workItemId, { contextId: scopeOf(params) });
      return { status: 200, body: workItemView(item) };
    },
  });
}
