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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ID_KEY = /_ids?$/;
/** Deeper than any answer nests its ids (a batch's list of turns is depth 1). */
const MAX_DEPTH = 6;

/**
 * Every id an answer names, under any key ending `_id` or `_ids` (a list), at any depth up to 6: kept beside the
 * sealed answer so an erasure of any input it names finds it (docs/erasure.md). Not only the keys of inputs: an answer
 * naming an erased batch's turns as `turn_ids` must go too, and an id recorded in excess deletes a kept answer early,
 * which only costs a retry its replay. Bounded by the answers themselves (a batch names at most 500 turns);
 * idempotency.e2e.test.ts checks every idempotent route's answer schema against it.
 */
export function inputIdsOf(body: unknown): string[] {
  const found = new Set<string>();
  const visit = (value: unknown, depth: number): void => {
    if (depth > MAX_DEPTH || value === null || typeof value !== "object") return;
    for (const [key, child] of Object.entries(value)) {
      const named = ID_KEY.test(key) ? (Array.isArray(child) ? child : [child]) : [];
      for (const id of named) if (typeof id === "string" && UUID.test(id)) found.add(id.toLowerCase());
      visit(child, depth + 1);
    }
  };
  visit(body, 0);
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
