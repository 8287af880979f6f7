// The operators' queue dashboard (bull-board) at /admin/queues. It is an operator UI,
// not part of the API contract, so it is not in the OpenAPI document. A browser can
// reach it with HTTP Basic auth (any user name, ADMIN_API_KEY as the password);
// scripts may send `Authorization: Bearer $ADMIN_API_KEY`.
import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { ExpressAdapter } from "@bull-board/express";
import { Router, type NextFunction, type Request, type Response } from "express";
import { QUEUE_NAMES } from "@recall/pipeline";
import type { ApiDeps } from "../deps";
import { AppError, sendProblem } from "../http/errors";
import { requireAdminSecret } from "./operator-guards";

export const DASHBOARD_PATH = "/admin/queues";
const READ_METHODS = new Set(["GET", "HEAD"]);
/** Bull Board's page links its fonts from Google: an operator page loads nothing from another host (system fonts serve). */
const OUTSIDE_LINK = /<link\b[^>]*\bhref="(?:https?:)?\/\/[^"]*"[^>]*>/g;

/** Only this host, for whatever Bull Board's page might add in a later version (its own inline styles kept). */
export const OPERATOR_PAGE_CSP = "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:";

function ownHostOnly(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader("Content-Security-Policy", OPERATOR_PAGE_CSP);
  const send = res.send.bind(res);
  res.send = (body?: unknown) => send(typeof body === "string" ? body.replace(OUTSIDE_LINK, "") : body);
  next();
}

/**
 * Read-only: Bull Board's retry, clean, promote and delete act on jobs behind the work-item
 * service's back (a job retried there runs without its work item being queued again, a job
 * removed there leaves its item queued for the sweeper). Operators retry through Recall: the
 * dashboard at /admin, the work-item API or the CLI. Anything but a read is refused before Bull
 * Board sees it, as well.
 */
export function queueDashboard(deps: ApiDeps): Router {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(DASHBOARD_PATH);
  // Each stage's interactive and background lanes (packages/pipeline priority.ts).
  const queues = [...QUEUE_NAMES.map((name) => deps.queues[name]), ...QUEUE_NAMES.map((name) => deps.queues.background[name])];
  createBullBoard({ queues: queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode: true })), serverAdapter });
  const router = Router();
  router.use(requireAdminSecret(deps, "recall queues"));
  router.use((req: Request, res: Response, next: NextFunction) => {
    if (READ_METHODS.has(req.method)) return next();
    const message = "the queue dashboard is read-only; retry work with POST /api/v1/admin/work-items/{id}/retry or the /admin dashboard";
    sendProblem(res, new AppError(405, "read_only", message, [{ field: "method", message }]));
  });
  router.use(ownHostOnly, serverAdapter.getRouter());
  return router;
}
