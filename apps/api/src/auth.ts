import type { NextFunction, Request, RequestHandler, Response } from "express";
import { AppError } from "./errors";
import { prefixOf, secretsEqual, verifyKey } from "./api-keys";
import type { ApiDeps } from "./deps";

const unauthorized = (message: string) => new AppError(401, "unauthorized", message);

export function requireAdmin(deps: ApiDeps): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    const admin = deps.config.ADMIN_API_KEY;
    if (!admin) throw new AppError(503, "admin_disabled", "ADMIN_API_KEY is not set on the server");
    const given = /^Bearer (.+)$/.exec(req.header("authorization") ?? "")?.[1];
    if (!given || !secretsEqual(given, admin)) throw unauthorized("Authorization: Bearer <ADMIN_API_KEY> required");
    next();
  };
}

/** Checks the API-KEY header; a valid key of another context answers 404, so ids never leak across tenants. */
export function requireContextKey(deps: ApiDeps): RequestHandler {
  return async (req: Request, _res: Response, next: NextFunction) => {
    const key = req.header("api-key");
    if (!key) throw unauthorized("header API-KEY is required");
    const prefix = prefixOf(key);
    const row = prefix ? await deps.db.apiKey.findUnique({ where: { prefix } }) : null;
    if (!row || row.revokedAt || !(await verifyKey(key, row.hash))) throw unauthorized("API-KEY is not valid");
    if (row.contextId !== req.params.contextId) throw new AppError(404, "not_found", "context not found");
    next();
  };
}
