// Abandon: the sweeper takes back a `running` item whose process died (stale-running.ts). One
// statement moves it to `queued` (to run again) or `dead` (for an operator to retry) and closes
// its open attempt records as abandoned, only while it is still the attempt the sweeper saw, so
// of two sweepers, or a sweeper and a late outcome, one wins.
import type { DbOrTx, WorkItem } from "@recall/db";
import type { AbandonedAttemptError } from "../errors";

/** Answers whether this call took the item back. */
export async function abandonWorkItem(
  db: DbOrTx,
  seen: Pick<WorkItem, "id" | "attempts" | "startedAt">,
  status: "queued" | "dead",
  err: AbandonedAttemptError,
): Promise<boolean> {
  const attemptStatus = status === "dead" ? "dead" : "failed";
  const [row] = await db.$queryRaw<{ taken: number }[]>`
    WITH item AS (
      UPDATE work_items SET status = ${status}::"WorkStatus", error_class = ${err.errorClass}::"ErrorClass",
        error_message = ${err.message}, finished_at = CASE WHEN ${status} = 'dead' THEN now() END
      WHERE id = ${seen.id}::uuid AND status = 'running' AND attempts = ${seen.attempts}
        AND started_at IS NOT DISTINCT FROM ${seen.startedAt}::timestamptz
      RETURNING id
    ), closed AS (
      UPDATE work_attempts a SET status = ${attemptStatus}::"WorkStatus", error_class = ${err.errorClass}::"ErrorClass",
        error_message = ${err.message}, finished_at = now()
      FROM item WHERE a.work_item_id = item.id AND a.status = 'running'
    )
    SELECT count(*)::int AS taken FROM item`;
  return (row?.taken ?? 0) > 0;
}
