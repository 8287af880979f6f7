// Hand-back: a shutting-down worker gives its running item back (HandBackError). One statement
// closes the attempt as abandoned and queues the item again for whichever worker takes the job
// next, only while it is still running; BullMQ's attempt is not spent (the job goes back to waiting).
import type { DbOrTx } from "@recall/db";
import type { AbandonedAttemptError } from "../errors";

export async function handBackWorkItem(
  db: DbOrTx,
  ref: { workItemId: string; attemptId: string },
  err: AbandonedAttemptError,
  wallMs: number,
): Promise<void> {
  await db.$executeRaw`
    WITH closed AS (
      UPDATE work_attempts SET status = 'failed', error_class = ${err.errorClass}::"ErrorClass", error_message = ${err.message},
        wall_ms = ${wallMs}, finished_at = now()
      WHERE id = ${ref.attemptId}::uuid
    )
    UPDATE work_items SET status = 'queued', error_class = ${err.errorClass}::"ErrorClass", error_message = ${err.message},
      wall_ms_used = wall_ms_used + ${wallMs}
    WHERE id = ${ref.workItemId}::uuid AND status = 'running'`;
}
