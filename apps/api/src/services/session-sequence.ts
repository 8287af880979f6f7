// A session's turns are numbered in order of arrival, one store at a time: the storing
// transaction locks the session's row, reads the last sequence number and writes after it.
// Inside one API process the session's wait line (wait-line.ts) already keeps them apart; the
// row lock keeps apart stores from several processes, bounded by lock_timeout so a request never
// waits longer than the session's wait. No unique-violation retry loop: nothing races.
import type { Tx } from "@recall/db";
import { DomainError, notFoundError } from "./domain-error";

/**
 * Locks the context's session and answers its next sequence number (the first of several, for a
 * batch). Throws not_found when the session is not the context's, and DomainError("busy") when
 * the lock is not had within `waitMs` (another process holds it that long).
 */
export async function claimSessionSeq(tx: Tx, session: { contextId: string; sessionId: string }, waitMs: number): Promise<number> {
  await tx.$queryRaw`SELECT set_config('lock_timeout', ${`${Math.max(1, Math.round(waitMs))}ms`}, true)`;
  let rows: { last: number | null }[];
  try {
    rows = await tx.$queryRaw<{ last: number | null }[]>`
      SELECT (SELECT max(t.seq) FROM turns t WHERE t.session_id = s.id) AS last
      FROM sessions s WHERE s.id = ${session.sessionId}::uuid AND s.context_id = ${session.contextId}::uuid FOR UPDATE OF s`;
  } catch (err) {
    if (/lock timeout/i.test(String(err))) throw sessionBusy(waitMs);
    throw err;
  }
  if (rows.length === 0) throw notFoundError("session");
  return (rows[0]!.last ?? 0) + 1;
}

/** The same refusal whether the wait ran out in this process's line or on the row lock. */
export function sessionBusy(waitMs: number): DomainError {
  const message = `this session is busy: earlier turns were still being stored after ${waitMs} ms (RECALL_SESSION_WAIT_MS); retry after Retry-After seconds`;
  return new DomainError("busy", message, { retryAfterSeconds: 1, problem: "session_busy" });
}
