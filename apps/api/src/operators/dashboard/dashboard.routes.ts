// The operators' dashboard at /admin: one static page (dashboard.html, vanilla JS, no build)
// polling overview.json every two seconds, and a retry action under the same rules as the API.
// Like /admin/queues it takes HTTP Basic auth (any user name, ADMIN_API_KEY as the password) so
// a browser can open it, or `Authorization: Bearer`; the retry needs the page's own origin too
// (operator-guards.ts). An operator UI, not in the OpenAPI document.
import { readFileSync } from "node:fs";
import path from "node:path";
import { Router, type Request, type Response } from "express";
import { z } from "zod";
import { NotRetryableError, WorkItemNotFoundError } from "@recall/queues";
import type { ApiDeps } from "../../deps";
import { AppError, fromZod, sendProblem } from "../../http/errors";
import { requireAdminSecret, requireSameOrigin } from "../operator-guards";
import { workItemView } from "../../views/work-item-view";
import { dashboardOverview } from "./dashboard-overview";

export const ADMIN_DASHBOARD_PATH = "/admin";

const WorkItemId = z.object({ workItemId: z.uuid("must be a work item id") }).transform((p) => p.workItemId);
const page = readFileSync(path.join(__dirname, "dashboard.html"), "utf8");

export function adminDashboard(deps: ApiDeps): Router {
  const router = Router();
  router.use(requireAdminSecret(deps, "recall admin"), requireSameOrigin);
  router.get("/", (_req, res) => void res.type("html").set("Cache-Control", "no-store").send(page));
  router.get("/overview.json", async (_req, res) => {
    res.set("Cache-Control", "no-store").json(await dashboardOverview(deps));
  });
  router.post("/work-items/:workItemId/retry", async (req: Request, res: Response) => {
    const id = WorkItemId.safeParse(req.params);
    if (!id.success) return sendProblem(res, fromZod(id.error, "path"));
    try {
      res.status(202).json(workItemView(await deps.workItems.retry(id.data)));
    } catch (err) {
      if (err instanceof WorkItemNotFoundError) return sendProblem(res, new AppError(404, "not_found", err.message));
      if (err instanceof NotRetryableError) return sendProblem(res, new AppError(409, "conflict", err.message));
      throw err;
    }
  });
  return router;
}
