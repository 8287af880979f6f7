// What stands in front of the operator UIs (/admin, /admin/queues): the admin key, as HTTP Basic
// (any user name, ADMIN_API_KEY as the password) so a browser can open them, or as a Bearer token
// for scripts; and, for anything that changes state, proof the request came from the dashboard's
// own page. A browser sends cached Basic credentials with any request to the host, including a
// form another site posts, so Basic alone would let a hostile page retry work.
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { withoutTenant } from "@recall/db";
import type { ApiDeps } from "../deps";
import { AppError, sendProblem } from "../http/errors";
import { secretsEqual } from "../services/api-key-secrets";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

function adminSecret(req: Request): string | undefined {
  const header = req.header("authorization") ?? "";
  const bearer = /^Bearer (.+)$/.exec(header)?.[1];
  if (bearer) return bearer;
  const basic = /^Basic (.+)$/.exec(header)?.[1];
  if (!basic) return undefined;
  const decoded = Buffer.from(basic, "base64").toString("utf8");
  return decoded.slice(decoded.indexOf(":") + 1);
}

export function requireAdminSecret(deps: Pick<ApiDeps, "config">, realm: string): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const admin = deps.config.ADMIN_API_KEY;
    const given = adminSecret(req);
    // Operator pages span every context: they run in the audited bypass of row-level security.
    if (admin && given && secretsEqual(given, admin)) return withoutTenant("dashboard", next);
    res.status(401).set("WWW-Authenticate", `Basic realm="${realm}"`).type("text/plain").send("ADMIN_API_KEY required");
  };
}

/**
 * A state-changing request must come from this host's own page: `Sec-Fetch-Site: same-origin`
 * where the browser sends it, else an `Origin` naming this host. A request with neither was not
 * sent by a browser (they send Origin with every POST), so it is let through only with the
 * Bearer token, which no other site's page can make a browser add.
 */
export const requireSameOrigin: RequestHandler = (req, res, next) => {
  if (SAFE_METHODS.has(req.method)) return next();
  const site = req.header("sec-fetch-site");
  const origin = req.header("origin");
  if (site !== undefined ? site === "same-origin" : origin !== undefined ? sameHost(origin, req) : isBearer(req)) return next();
  const message = "a state-changing request must come from the dashboard's own page (same origin), or carry the Bearer admin key";
  sendProblem(res, new AppError(403, "cross_origin", message, [{ field: "header.Origin", message }]));
};

function sameHost(origin: string, req: Request): boolean {
  try {
    return new URL(origin).host === req.header("host");
  } catch {
    return false;
  }
}

function isBearer(req: Request): boolean {
  return /^Bearer /.test(req.header("authorization") ?? "");
}
