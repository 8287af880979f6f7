// A session's turns are numbered in order of arrival, one store at a time: the storing
// transaction locks the session's row, reads the last sequence number and writes after it.
// Inside one API process the session's wait line (wait-line.ts) already keeps them apart; the
// row lock keeps apart stores from several processes, bounded by lock_timeout so a request never
// waits longer than the session's wait. No unique-violation retry loop: nothing races.
import { DomainError, notFound } from "@recall/contracts";
import type { Tx } from "@recall/db";
import { holdScopeShared } from "@recall/memory";

/**
 * Locks the context's session and answers its next sequence number, with the context's config, after the shared
 * locks of the turns' scope pairs (erasure by scope, docs/erasure.md). Throws not_found when the session is not the
 * context's, conflict when an erasure deleted it, and DomainError("busy") when the locks are not had within `waitMs`
 * (another process, or an erasure, holds them that long).
 */
export async function claimSessionSeq(
  tx: Tx,
  session: { contextId: string; sessionId: string },
  waitMs: number,
  scope: readonly string[] = [],
): Promise<ClaimedSeq> {
  await tx.$queryRaw`SELECT set_config('lock_timeout', ${`${Math.max(1, Math.round(waitMs))}ms`}, true)`;
  let rows: { last: number | null; config: unknown }[];
  try {
    // The scope's pairs first, as an erasure of the scope takes them, then the session's row as an erasure does.
    await holdScopeShared(tx, session.contextId, scope);
    rows = await tx.$queryRaw<{ last: number | null; config: unknown }[]>`
      SELECT (SELECT max(t.seq) FROM turns t WHERE t.session_id = s.id) AS last, c.config
      FROM sessions s JOIN contexts c ON c.id = s.context_id
      WHERE s.id = ${session.sessionId}::uuid AND s.context_id = ${session.contextId}::uuid FOR UPDATE OF s`;
  } catch (err) {
    if (/lock timeout/i.test(String(err))) throw sessionBusy(waitMs);
    throw err;
  }
  const [row] = rows;
  if (!row) throw await missingSession(tx, session);
  return { seq: (row.last ?? 0) + 1, contextConfig: row.config };
}

export interface ClaimedSeq {
  /** The next sequence number (the first of several, for a batch). */
  seq: number;
  /** The context's stored config, read in the same statement (its rules apply to the turns stored). */
  contextConfig: unknown;
}

/**
 * A session an erasure deleted refuses turns with 409 `session_erased` (its tombstone says which erasure), so a
 * writer racing the erasure learns its turn was not stored; any other is not found.
 */
async function missingSession(tx: Tx, session: { contextId: string; sessionId: string }): Promise<DomainError> {
  const erased = await tx.erasedInput.findFirst({
    where: { inputId: session.sessionId, contextId: session.contextId, kind: "session" },
    select: { erasureId: true },
  });
  if (!erased) return notFound("session");
  const message = `this session was erased (erasure ${erased.erasureId}): it takes no more turns; start a new session`;
  return new DomainError("conflict", message, { problem: "session_erased" });
}

/** The same refusal whether the wait ran out in this process's line or on the row lock. */
export function sessionBusy(waitMs: number): DomainError {
  const message = `this session is busy: earlier turns were still being stored after ${waitMs} ms (RECALL_SESSION_WAIT_MS); retry after Retry-After seconds`;
  return new DomainError("busy", message, { retryAfterSeconds: 1, problem: "session_busy" });
}
