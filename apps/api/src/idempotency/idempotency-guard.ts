// Client retries made safe. A write that carries an Idempotency-Key runs once per key: a retry of the
// same request (method, path and body; for an upload, the file's hash and its fields) gets the first answer again, status and body, and stores
// nothing; the same key on another request is refused (422); a retry that arrives while the first
// is still running waits for its answer (up to waitMs, then 409 with Retry-After). Routes opt in
// with `idempotent: true` in their definition; route-mount.ts applies this guard to those.
import { createHash } from "node:crypto";
import type { Request, Response } from "express";
import type { Db } from "@recall/db";
import type { Logger } from "@recall/telemetry";
import { AppError } from "../http/errors";
import type { Reply } from "../http/route-definition";
import { keyDigest, seal, unseal, type Sealed } from "./idempotency-seal";
import { claimKey, completeKey, inputIdsOf, pruneExpiredKeys, readKey, releaseKey } from "./idempotency-store";

export const IDEMPOTENCY_HEADER = "Idempotency-Key";
export const REPLAYED_HEADER = "Idempotent-Replayed";
const FIELD = `header.${IDEMPOTENCY_HEADER}`;
/** Printable ASCII without spaces, as Stripe and the IETF draft allow: a UUID fits, a sentence does not. */
const KEY_SHAPE = /^[\x21-\x7E]{1,255}$/;
const POLL_MS = 50;
const PRUNE_EVERY_MS = 60_000;

export interface IdempotencyOptions {
  retentionMs: number;
  /** An unanswered claim older than this belongs to a process that died. */
  leaseMs: number;
  /** How long a concurrent duplicate waits for the first request's answer. */
  waitMs: number;
}

export class IdempotencyGuard {
  private lastPrune = 0;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    private readonly options: IdempotencyOptions,
  ) {}

  /**
   * Runs handle once per (scope, key); without the header it just runs it. `material`, for a route
   * that reads its own body, says what identifies the request in place of the parsed JSON body.
   */
  async run(
    req: Request,
    res: Response,
    scope: string,
    handle: () => Promise<Reply>,
    material?: (req: Request, res: Response) => Promise<unknown>,
  ): Promise<Reply> {
    const key = keyOf(req);
    if (key === undefined) return handle();
    const digest = keyDigest(scope, key);
    const fingerprint = fingerprintOf(req, material ? await material(req, res) : req.body);
    const { leaseMs, retentionMs, waitMs } = this.options;
    const deadline = Date.now() + waitMs;
    for (;;) {
      const token = await claimKey(this.db, { scope, digest, fingerprint, leaseMs, retentionMs });
      if (token) return this.runClaimed(token, scope, key, handle);
      const row = await readKey(this.db, scope, digest);
      if (!row) continue; // released between our claim and read: claim again
      if (row.fingerprint !== fingerprint) throw reused();
      if (row.status !== null && row.body) {
        res.setHeader(REPLAYED_HEADER, "true");
        return { status: row.status, body: unseal(scope, key, row.body as Sealed) };
      }
      if (Date.now() >= deadline) {
        res.setHeader("Retry-After", String(Math.max(1, Math.ceil((row.lockedUntil.getTime() - Date.now()) / 1_000))));
        throw inProgress();
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /**
   * Errors are not kept: a failed write stored nothing (ingest writes in one transaction), so the key
   * is given back and a retry runs the request again.
   */
  private async runClaimed(token: string, scope: string, key: string, handle: () => Promise<Reply>): Promise<Reply> {
    let reply: Reply;
    try {
      reply = await handle();
    } catch (err) {
      await releaseKey(this.db, token).catch((e: Error) => this.logger.warn({ err: e.message }, "idempotency key not released"));
      throw err;
    }
    // The write is done: a failure to keep its answer is logged, never turned into an error answer.
    await completeKey(this.db, token, reply.status, seal(scope, key, reply.body), inputIdsOf(reply.body)).catch((e: Error) =>
      this.logger.error({ err: e.message }, "idempotency answer not kept"),
    );
    this.pruneNow();
    return reply;
  }

  /** Expired rows are deleted at most once a minute per process, off the request's path. */
  private pruneNow(): void {
    if (Date.now() - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = Date.now();
    pruneExpiredKeys(this.db).catch((e: Error) => this.logger.warn({ err: e.message }, "pruning idempotency keys failed"));
  }
}

function keyOf(req: Request): string | undefined {
  const key = req.header(IDEMPOTENCY_HEADER);
  if (key === undefined) return undefined;
  if (!KEY_SHAPE.test(key)) {
    const message = "must be 1 to 255 printable ASCII characters without spaces (a UUID is a good key)";
    throw new AppError(400, "invalid_request", `${FIELD}: ${message}`, [{ field: FIELD, message }]);
  }
  return key;
}

/** Method, path and body (or the route's material), with object keys sorted so a re-serialised body still matches. */
function fingerprintOf(req: Request, body: unknown): string {
  const canonical = JSON.stringify([req.method, req.originalUrl, body ?? null], (_k, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
  return createHash("sha256").update(canonical).digest("hex");
}

function reused(): AppError {
  const message = "was already used for a different request (method, path or body) within the retention window; use a new key";
  return new AppError(422, "idempotency_key_reused", `${IDEMPOTENCY_HEADER} ${message}`, [{ field: FIELD, message }]);
}

function inProgress(): AppError {
  const message = "a request with this key is still in progress; retry after Retry-After seconds";
  return new AppError(409, "idempotency_key_in_progress", `${IDEMPOTENCY_HEADER}: ${message}`, [{ field: FIELD, message }]);
}
