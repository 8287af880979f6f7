// The idempotency_keys table: one row per (scope, key digest). A request claims the row before it
// runs and records its answer after; a unique index makes the claim atomic across API processes.
import { randomUUID } from "node:crypto";
import { withoutTenant, type Db } from "@recall/db";
import type { Sealed } from "./idempotency-seal";

export interface ClaimInput {
  scope: string;
  digest: string;
  fingerprint: string;
  leaseMs: number;
  retentionMs: number;
}

export interface KeptRow {
  fingerprint: string;
  status: number | null;
  body: Sealed | null;
  lockedUntil: Date;
}

/**
 * Claims the key and returns a claim token, or null when another request holds or has answered it.
 * An expired row is reused; so is an unanswered row whose lease ran out (its process died before
 * answering), but only by the same request, so a takeover never changes what the key means.
 */
export async function claimKey(db: Db, input: ClaimInput): Promise<string | null> {
  const token = randomUUID();
  const rows = await db.$queryRaw<{ id: string }[]>`
    INSERT INTO idempotency_keys (id, scope, key, fingerprint, locked_until, expires_at)
    VALUES (${token}::uuid, ${input.scope}, ${input.digest}, ${input.fingerprint},
            now() + ${input.leaseMs} * interval '1 millisecond', now() + ${input.retentionMs} * interval '1 millisecond')
    ON CONFLICT (scope, key) DO UPDATE
      SET id = EXCLUDED.id, fingerprint = EXCLUDED.fingerprint, locked_until = EXCLUDED.locked_until,
          expires_at = EXCLUDED.expires_at, created_at = now(), response_status = NULL, response_body = NULL
      WHERE (idempotency_keys.expires_at < now()
             AND (idempotency_keys.response_status IS NOT NULL OR idempotency_keys.locked_until < now()))
         OR (idempotency_keys.response_status IS NULL AND idempotency_keys.locked_until < now()
             AND idempotency_keys.fingerprint = EXCLUDED.fingerprint)
    RETURNING id`;
  return rows[0]?.id ?? null;
}

export async function readKey(db: Db, scope: string, digest: string): Promise<KeptRow | null> {
  const row = await db.idempotencyKey.findUnique({ where: { scope_key: { scope, key: digest } } });
  if (!row) return null;
  return {
    fingerprint: row.fingerprint,
    status: row.responseStatus,
    body: row.responseBody as Sealed | null,
    lockedUntil: row.lockedUntil,
  };
}

/** Records the answer under the claim; a claim taken over meanwhile (token changed) records nothing. */
export async function completeKey(db: Db, token: string, status: number, body: Sealed, inputIds: string[] = []): Promise<void> {
  await db.idempotencyKey.updateMany({
    where: { id: token },
    data: { responseStatus: status, responseBody: body as object, lockedUntil: new Date(), inputIds },
  });
}

const INPUT_KEYS = new Set(["turn_id", "session_id", "document_id", "fact_write_id"]);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The input ids an answer names (`turn_id`, `session_id`, `document_id`, `fact_write_id`, at any depth up to 3, as
 * in a batch's list of turns): kept beside the sealed answer so an erasure of one of them finds it (docs/erasure.md).
 */
export function inputIdsOf(body: unknown, depth = 0, found = new Set<string>()): string[] {
  if (depth > 3 || body === null || typeof body !== "object" || found.size >= 1_000) return [...found];
  for (const [key, value] of Object.entries(body)) {
    if (INPUT_KEYS.has(key) && typeof value === "string" && UUID.test(value)) found.add(value);
    else if (typeof value === "object") inputIdsOf(value, depth + 1, found);
  }
  return [...found];
}

/** Gives the key back after a failure that stored nothing, so a retry runs the request again. */
export async function releaseKey(db: Db, token: string): Promise<void> {
  await db.idempotencyKey.deleteMany({ where: { id: token, responseStatus: null } });
}

/** Deletes rows past their retention, of every context (never one still in flight); returns how many. */
export async function pruneExpiredKeys(db: Db, now = new Date()): Promise<number> {
  const { count } = await withoutTenant("sweeper", () =>
    db.idempotencyKey.deleteMany({
      where: { expiresAt: { lt: now }, OR: [{ responseStatus: { not: null } }, { lockedUntil: { lt: now } }] },
    }),
  );
  return count;
}
