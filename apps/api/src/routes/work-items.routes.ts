// Operators list failed work and retry it; the input was kept, so a retry starts from it.
import { z } from "zod";
import { NotRetryableError, retryWorkItem } from "@recall/queues";
import type { Prisma } from "@recall/db";
import type { ApiDeps } from "../deps";
import { AppError, Problem, notFound } from "../http/errors";
import { Cursor, NextCursor, limitParam, pageByCreation } from "../http/pagination";
import { defineRoute, type RouteDefinition } from "../http/route-definition";
import { WorkItemView, workItemView } from "../views/work-item-view";
import { contextIdOf } from "../http/validate";

const ListQuery = z.object({
  status: z.enum(["queued", "running", "succeeded", "failed", "dead"]).optional(),
  limit: limitParam(100, 500),
  cursor: Cursor,
});
const ItemParams = z.object({ contextId: z.string(), workItemId: z.uuid("must be a work item id") });

export function workItemRoutes(deps: ApiDeps): RouteDefinition[] {
  return [listWorkItems(deps), retryRoute(deps)];
}

function listWorkItems(deps: ApiDeps): RouteDefinition {
  return defineRoute({
    method: "get",
    path: "/work-items",
    summary: "List work items, newest first (e.g. status=dead for failed work)",
    tags: ["operations"],
    query: ListQuery,
    responses: {
      200: { description: "A page of work items", schema: z.object({ work_items: z.array(WorkItemView), next_cursor: NextCursor }) },
    },
    handle: async ({ query, req }) => {
      const where: Prisma.WorkItemWhereInput = { contextId: contextIdOf(req), status: query.status };
      if (query.cursor) {
        const at = new Date(String(query.cursor.k));
        where.OR = [{ createdAt: { lt: at } }, { createdAt: at, id: { lt: query.cursor.id } }];
      }
      const rows = await deps.db.workItem.findMany({ where, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: query.limit + 1 });
      const page = pageByCreation(rows, query.limit);
      return { status: 200, body: { work_items: page.items.map(workItemView), next_cursor: page.nextCursor } };
    },
  });
}

function retryRoute(deps: ApiDeps): RouteDefinition {
  return defineRoute({
    method: "post",
    idempotent: true,
    path: "/work-items/:workItemId/retry",
    summary: "Retry a failed or dead work item from its kept input",
    tags: ["operations"],
    params: ItemParams,
    responses: {
      202: { description: "Queued again", schema: WorkItemView },
      409: { description: "The work item is not failed or dead", schema: Problem, contentType: "application/problem+json" },
    },
    handle: async ({ params }) => {
      const item = await deps.db.workItem.findFirst({ where: { id: params.workItemId, contextId: params.contextId } });
      if (!item) throw notFound("work item");
      try {
        return { status: 202, body: workItemView(await retryWorkItem(deps.db, deps.queues, item)) };
      } catch (err) {
        if (err instanceof NotRetryableError) throw new AppError(409, "not_retryable", err.message);
        throw err;
      }
    },
  });
}
