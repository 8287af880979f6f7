import { createHash, timingSafeEqual } from "node:crypto";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { withTenant, withoutTenant, type ApiKey } from "@recall/db";
import { AppError } from "./errors";
import { prefixOf, secretsEqual, verifyKey } from "../services/api-key-secrets";
import type { ApiDeps } from "../deps";

const unauthorized = (message: string) => new AppError(401, "unauthorized", message);

/** A verified key skips scrypt (tens of milliseconds by design) for this long; revocation still applies at once. */
const VERIFIED_FOR_MS = 5 * 60_000;
const MAX_VERIFIED = 10_000;
/** last_used_at is advisory: written at most once a minute per key, not on every request. */
const LAST_USED_EVERY_MS = 60_000;

export function requireAdmin(deps: ApiDeps): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    const admin = deps.config.ADMIN_API_KEY;
    if (!admin) throw new AppError(503, "admin_disabled", "ADMIN_API_KEY is not set on the server");
    const given = /^Bearer (.+)$/.exec(req.header("authorization") ?? "")?.[1];
    if (!given || !secretsEqual(given, admin)) throw unauthorized("Authorization: Bearer <ADMIN_API_KEY> required");
    withoutTenant("admin", next);
  };
}

/**
 * Checks the API-KEY header; a valid key of another context answers 404, so ids never leak across tenants.
 * The rest of the request runs as the key's context: Postgres shows it that context's rows only.
 */
export function requireContextKey(deps: ApiDeps): RequestHandler {
  const verified = new VerifiedKeys();
  return async (req: Request, _res: Response, next: NextFunction) => {
    const key = req.header("api-key");
    if (!key) throw unauthorized("header API-KEY is required");
    const prefix = prefixOf(key);
    // The row is read on every request, so a revoked key stops working at once even while cached as verified.
    const row = prefix ? await findKey(deps, prefix, String(req.params.contextId)) : null;
    if (!row || row.revokedAt || !(await verified.check(row, key))) throw unauthorized("API-KEY is not valid");
    if (row.contextId !== req.params.contextId) throw new AppError(404, "not_found", "context not found");
    if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > LAST_USED_EVERY_MS) {
      await withTenant(row.contextId, () => deps.db.apiKey.update({ where: { id: row.id }, data: { lastUsedAt: new Date() } }));
    }
    withTenant(row.contextId, next);
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The key's row, looked up as the path's context: the usual case, and then the whole request keeps one scope (no
 * scope change on the connection). Not found there, it is looked up in the audited bypass, so a valid key of
 * another context still answers 404, not 401.
 */
async function findKey(deps: ApiDeps, prefix: string, pathContext: string): Promise<ApiKey | null> {
  const lookup = () => deps.db.apiKey.findUnique({ where: { prefix } });
  const own = UUID.test(pathContext) ? await withTenant(pathContext, lookup) : null;
  return own ?? (await withoutTenant("api-key-lookup", lookup));
}

/**
 * Remembers, per key row, a SHA-256 digest of the key that last passed scrypt, so
 * repeated requests compare digests in constant time instead of re-deriving scrypt.
 */
class VerifiedKeys {
  private readonly entries = new Map<string, { digest: Buffer; until: number }>();
  /**
   * Row id + digest of keys that failed scrypt: a client (or attacker) repeating a wrong key with a
   * real prefix costs a hash lookup, not a scrypt each time. A row's hash never changes, so a
   * rejected key stays wrong.
   */
  private readonly rejected = new Map<string, number>();

  async check(row: ApiKey, key: string): Promise<boolean> {
    const digest = createHash("sha256").update(key).digest();
    const entry = this.entries.get(row.id);
    if (entry && entry.until > Date.now() && timingSafeEqual(entry.digest, digest)) return true;
    const wrong = `${row.id}:${digest.toString("hex")}`;
    if ((this.rejected.get(wrong) ?? 0) > Date.now()) return false;
    if (!(await verifyKey(key, row.hash))) {
      if (this.rejected.size >= MAX_VERIFIED) this.rejected.delete(this.rejected.keys().next().value!);
      this.rejected.set(wrong, Date.now() + VERIFIED_FOR_MS);
      return false;
    }
    if (this.entries.size >= MAX_VERIFIED) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(row.id, { digest, until: Date.now() + VERIFIED_FOR_MS });
    return true;
  }
}
