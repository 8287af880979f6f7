// The operators' queue dashboard (bull-board) at /admin/queues. It is an operator UI,
// not part of the API contract, so it is not in the OpenAPI document. A browser can
// reach it with HTTP Basic auth (any user name, ADMIN_API_KEY as the password);
// scripts may send `Authorization: Bearer $ADMIN_API_KEY`.
import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { ExpressAdapter } from "@bull-board/express";
import { Router, type NextFunction, type Request, type Response } from "express";
import { QUEUE_NAMES } from "@recall/queues";
import { secretsEqual } from "../http/api-keys";
import type { ApiDeps } from "../deps";

export const DASHBOARD_PATH = "/admin/queues";

export function adminSecret(req: Request): string | undefined {
  const header = req.header("authorization") ?? "";
  const bearer = /^Bearer (.+)$/.exec(header)?.[1];
  if (bearer) return bearer;
  const basic = /^Basic (.+)$/.exec(header)?.[1];
  if (!basic) return undefined;
  const decoded = Buffer.from(basic, "base64").toString("utf8");
  return decoded.slice(decoded.indexOf(":") + 1);
}

export function queueDashboard(deps: ApiDeps): Router {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(DASHBOARD_PATH);
  createBullBoard({ queues: QUEUE_NAMES.map((name) => new BullMQAdapter(deps.queues[name], { readOnlyMode: false })), serverAdapter });
  const router = Router();
  router.use((req: Request, res: Response, next: NextFunction) => {
    const admin = deps.config.ADMIN_API_KEY;
    const given = adminSecret(req);
    if (admin && given && secretsEqual(given, admin)) return next();
    res.status(401).set("WWW-Authenticate", 'Basic realm="recall queues"').type("text/plain").send("ADMIN_API_KEY required");
  });
  router.use(serverAdapter.getRouter());
  return router;
}
