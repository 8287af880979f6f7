// Back to `queued`, each a conditional statement so that of two callers one wins: an operator's
// retry (from failed, dead or cancelled; re-extraction also from succeeded), the sweeper taking
// back a failed item whose retry job Redis lost, and an operator's cancel, which stops queued or
// failed work.
import { Prisma, type DbOrTx, type WorkItem, type WorkStatus } from "@recall/db";
import { itemColumns } from "./item-row";
import { batchTurns } from "./turn-groups";

/** Queued again from `from` (its error cleared); undefined when it is no longer `from`. */
export async function resetToQueued(
  db: DbOrTx,
  workItemId: string,
  from: WorkStatus,
  options: { background?: boolean } = {},
): Promise<WorkItem | undefined> {
  // A bulk retry is work nobody waits on: it moves to the background lane, for this stage and the ones after it.
  const background = options.background ? { background: true } : {};
  const [row] = await db.$queryRaw<WorkItem[]>`
    UPDATE work_items w SET status = 'queued', error_class = NULL, error_message = NULL, finished_at = NULL,
      payload = CASE WHEN jsonb_typeof(w.payload) = 'object' THEN w.payload || ${JSON.stringify(background)}::jsonb ELSE w.payload END
    WHERE id = ${workItemId}::uuid AND status = ${from}::"WorkStatus"
    RETURNING ${itemColumns("w")}`;
  return row;
}

/** A failed item the sweeper found without its retry job, queued again while still that failure; answers whether it was. */
export async function reclaimFailedWorkItem(db: DbOrTx, seen: Pick<WorkItem, "id" | "attempts">): Promise<boolean> {
  const count = await db.$executeRaw`
    UPDATE work_items SET status = 'queued' WHERE id = ${seen.id}::uuid AND status = 'failed' AND attempts = ${seen.attempts}`;
  return count > 0;
}

/** Cancelled while one of `from`; undefined when it was not. */
export async function cancelWorkItem(db: DbOrTx, workItemId: string, from: readonly WorkStatus[]): Promise<WorkItem | undefined> {
  // A batch's turns still waiting for its job of that stage are stopped with it (they would wait for a job that never runs).
  const [row] = await db.$queryRaw<WorkItem[]>`
    WITH item AS (
      UPDATE work_items w SET status = 'cancelled', finished_at = now()
      WHERE id = ${workItemId}::uuid AND status::text = ANY(${[...from]}::text[])
      RETURNING w.*
    ), turns AS (
      UPDATE work_items t SET status = 'cancelled', finished_at = now()
      FROM item WHERE item.subject_type = 'batch' AND t.queue = item.queue AND t.subject_type = 'turn'
        AND t.status = 'waiting' AND t.payload->>'batch_id' = item.subject_id::text
        AND t.subject_id IN (${batchTurns(Prisma.sql`item.subject_id`)})
    )
    SELECT ${itemColumns("item")} FROM item`;
  return row;
}

/**
 * Extract again (an operator's, once a model is set): items `awaiting_model` queued again in the background lane as
 * windowed turns, out of any batch or window they were read in, in one statement. Only items still awaiting a model
 * are taken, so of two callers one wins each item. Answers the items to enqueue.
 */
export async function queueAwaitingModel(db: DbOrTx, workItemIds: readonly string[]): Promise<WorkItem[]> {
  if (workItemIds.length === 0) return [];
  return db.$queryRaw<WorkItem[]>`
    UPDATE work_items w SET status = 'queued', error_class = NULL, error_message = NULL, finished_at = NULL,
      payload = (w.payload - 'batch_id' - 'window_id')
        || CASE WHEN w.subject_type = 'turn' THEN '{"mode":"windowed"}'::jsonb ELSE '{}'::jsonb END
        || '{"background":true,"extract_again":true}'::jsonb
    WHERE id = ANY(${[...workItemIds]}::uuid[]) AND status = 'awaiting_model' AND queue = 'extract_assertions'
    RETURNING ${itemColumns("w")}`;
}
