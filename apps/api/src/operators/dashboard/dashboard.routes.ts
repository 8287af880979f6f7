// The operators' dashboard at /admin: one static page (dashboard.html, vanilla JS, no build) and
// the JSON behind each of its views: the live overview, search by any id, the work-item list with
// filters and paging, one item's page, per-context model spend; and its actions (retry, retry from
// extract, cancel, bulk retry with a dry run, extract-again of inputs awaiting a model after a dry run), all through
// WorkItemService and ExtractAgainService like the API's; and the
// review queue (held candidates across contexts) with approve and reject, through ReviewService.
// Like /admin/queues it takes HTTP Basic auth (any user name, ADMIN_API_KEY as the password) so
// a browser can open it, or `Authorization: Bearer`; actions need the page's own origin too
// (operator-guards.ts). An operator UI, not in the OpenAPI document.
import { notFound } from "@recall/contracts";
import { readFileSync } from "node:fs";
import path from "node:path";
import { Router } from "express";
import { z } from "zod";
import type { ApiDeps } from "../../deps";
import { parseInput } from "../../http/route-definition";
import { cursorParam, encodeCursor, limitParam } from "../../http/pagination";
import { requireAdminSecret, requireSameOrigin } from "../operator-guards";
import { workItemView } from "../../views/work-item-view";
import { reviewView } from "../../routes/reviews.routes";
import { REVIEW_PAGE_DEFAULT, REVIEW_PAGE_MAX, ReviewEdit, ReviewListFields, ReviewNote, reviewFilterOf, reviewId } from "../review-inputs";
import { ExtractAgainBody, ListQuery, RetryManyBody, RetryQuery, filterOf } from "../../routes/work-items.schemas";
import { extractAgainService } from "../../services/extract-again";
import { extractAgainView } from "../../views/extract-again-view";
import { dashboardOverview } from "./dashboard-overview";
import { reviewQueue } from "./review-queue";
import { contextSpend, searchRuns, workItemPage, workItemsWithNames, type ExplorerDeps } from "./run-explorer";

export const ADMIN_DASHBOARD_PATH = "/admin";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TRACE_ID = /^[0-9a-f]{32}$/i;

const WorkItemId = z.object({ workItemId: z.uuid("must be a work item id") }).transform((p) => p.workItemId);
const SearchQuery = z.object({
  q: z
    .string("must be an id")
    .trim()
    .refine(
      (q) => UUID.test(q) || TRACE_ID.test(q),
      "must be a UUID (context, session, turn, document, batch, work item) or a 32-hex trace id",
    ),
});
const ReviewQueueQuery = z.object({
  context_id: z.uuid("must be a context id").optional().describe("only this context's reviews (default: every context)"),
  ...ReviewListFields,
  limit: limitParam(REVIEW_PAGE_DEFAULT, REVIEW_PAGE_MAX),
  cursor: cursorParam("seq"),
});
const ReviewPath = z.object({ contextId: z.uuid("must be a context id"), reviewId });
const ApproveBody = z.object({ edit: ReviewEdit, note: ReviewNote }).strict();
const RejectBody = z.object({ note: ReviewNote }).strict();

/** The overview's failed list, a page at a time. */
const OverviewQuery = z.object({ failed_cursor: cursorParam("time") });
/** The dashboard's list pages are smaller than the API's (docs/limits.md). */
const DashboardListQuery = ListQuery.extend({ limit: limitParam(50, 200) });

const page = readFileSync(path.join(__dirname, "dashboard.html"), "utf8");

function parse<T extends z.ZodType>(schema: T, value: unknown, where: "body" | "query" | "path"): z.output<T> {
  return parseInput(schema, value, where) as z.output<T>;
}

export function adminDashboard(deps: ApiDeps): Router {
  const router = Router();
  const { reviews } = deps;
  const explorer: ExplorerDeps = { db: deps.db, workItems: deps.workItems, traceUrlTemplate: deps.config.RECALL_TRACE_URL_TEMPLATE };
  router.use(requireAdminSecret(deps, "recall admin"), requireSameOrigin, (_req, res, next) => {
    res.set("Cache-Control", "no-store");
    next();
  });
  router.get("/", (_req, res) => void res.type("html").send(page));
  router.get("/overview.json", async (req, res) => {
    const { failed_cursor } = parse(OverviewQuery, req.query, "query");
    const { failedNext, ...overview } = await dashboardOverview(deps, failed_cursor);
    res.json({ ...overview, failed_next_cursor: encodeCursor(failedNext), trace_url_template: explorer.traceUrlTemplate ?? null });
  });
  router.get("/search.json", async (req, res) => {
    const { q } = parse(SearchQuery, req.query, "query");
    res.json(await searchRuns(explorer, q.toLowerCase(), UUID.test(q) ? "uuid" : "trace_id"));
  });
  router.get("/work-items.json", async (req, res) => {
    const query = parse(DashboardListQuery, req.query, "query");
    const found = await deps.workItems.list(filterOf(query, undefined), { limit: query.limit, after: query.cursor });
    res.json({ work_items: await workItemsWithNames(explorer, found.items), next_cursor: encodeCursor(found.next) });
  });
  router.get("/spend.json", async (_req, res) => void res.json(await contextSpend(deps.db)));
  router.get("/work-items/:workItemId/detail.json", async (req, res) => {
    const item = await workItemPage(explorer, parse(WorkItemId, req.params, "path"));
    if (!item) throw notFound("work item");
    res.json(item);
  });
  // Literal path before the :workItemId ones.
  router.post("/work-items/retries", async (req, res) => {
    const body = parse(RetryManyBody, req.body ?? {}, "body");
    const report = await deps.workItems.retryMany(filterOf(body, undefined), { dryRun: body.dry_run, from: body.from });
    res.json({
      dry_run: report.dryRun,
      matched: report.matched,
      retried: report.retried.map(workItemView),
      skipped: report.skipped.map((s) => ({ work_item_id: s.workItemId, reason: s.reason })),
    });
  });
  router.post("/work-items/extract-again", async (req, res) => {
    const body = parse(ExtractAgainBody, req.body ?? {}, "body");
    res.json(extractAgainView(await extractAgainService(deps).call({ contextId: body.context_id, dryRun: body.dry_run })));
  });
  router.post("/work-items/:workItemId/retry", async (req, res) => {
    const id = parse(WorkItemId, req.params, "path");
    const { from } = parse(RetryQuery, req.query, "query");
    res.status(202).json(workItemView(await deps.workItems.retry(id, { from })));
  });
  router.post("/work-items/:workItemId/cancel", async (req, res) => {
    const id = parse(WorkItemId, req.params, "path");
    res.json(workItemView(await deps.workItems.cancel(id)));
  });
  // Review before commit: the queue across contexts, and a decision on one review (its context in the path, as the
  // queue lists it; another context's id is a 404).
  router.get("/reviews.json", async (req, res) => {
    const { context_id, limit, cursor, ...fields } = parse(ReviewQueueQuery, req.query, "query");
    res.json(await reviewQueue(deps.db, { ...reviewFilterOf(fields), contextId: context_id }, { after: cursor, limit }));
  });
  router.post("/contexts/:contextId/reviews/:reviewId/approve", async (req, res) => {
    const { contextId, reviewId } = parse(ReviewPath, req.params, "path");
    const body = parse(ApproveBody, req.body ?? {}, "body");
    res.status(202).json({ ...reviewView(await reviews.decide(contextId, reviewId, "approve", body)), context_id: contextId });
  });
  router.post("/contexts/:contextId/reviews/:reviewId/reject", async (req, res) => {
    const { contextId, reviewId } = parse(ReviewPath, req.params, "path");
    const body = parse(RejectBody, req.body ?? {}, "body");
    res.json({ ...reviewView(await reviews.decide(contextId, reviewId, "reject", body)), context_id: contextId });
  });
  return router;
}
