// The operators' dashboard at /admin: one static page (dashboard.html, vanilla JS, no build)
// polling overview.json every two seconds, and a retry action under the same rules as the API.
// Like /admin/queues it takes HTTP Basic auth (any user name, ADMIN_API_KEY as the password) so
// a browser can open it, or `Authorization: Bearer`. An operator UI, not in the OpenAPI document.
import { readFileSync } from "node:fs";
import path from "node:path";
import { Router, type NextFunction, type Request, type Response } from "express";
import { NotRetryableError, WorkItemNotFoundError } from "@recall/queues";
import type { ApiDeps } from "../../deps";
import { adminSecret } from "../queue-dashboard";
import { secretsEqual } from "../../http/api-keys";
import { workItemView } from "../../views/work-item-view";
import { dashboardOverview } from "./dashboard-overview";

export const ADMIN_DASHBOARD_PATH = "/admin";

const page = readFileSync(path.join(__dirname, "dashboard.html"), "utf8");

export function adminDashboard(deps: ApiDeps): Router {
  const router = Router();
  router.use((req: Request, res: Response, next: NextFunction) => {
    const admin = deps.config.ADMIN_API_KEY;
    const given = adminSecret(req);
    if (admin && given && secretsEqual(given, admin)) return next();
    res.status(401).set("WWW-Authenticate", 'Basic realm="recall admin"').type("text/plain").send("ADMIN_API_KEY required");
  });
  router.get("/", (_req, res) => void res.type("html").set("Cache-Control", "no-store").send(page));
  router.get("/overview.json", async (_req, res) => {
    res.set("Cache-Control", "no-store").json(await dashboardOverview(deps));
  });
  router.post("/work-items/:workItemId/retry", async (req: Request, res: Response) => {
    try {
      const item = await deps.workItems.retry(String(req.params.workItemId));
      res.status(202).json(workItemView(item));
    } catch (err) {
      if (err instanceof WorkItemNotFoundError) return void res.status(404).json({ detail: err.message });
      if (err instanceof NotRetryableError) return void res.status(409).json({ detail: err.message });
      throw err;
    }
  });
  return router;
}
