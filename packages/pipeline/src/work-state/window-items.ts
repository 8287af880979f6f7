// A turn's extraction handed to a window of its session (windowed extraction) and back. The
// turn's extract_assertions item waits (`waiting`, its open attempt too) while the window's own
// item runs; the window then finishes it (its candidates staged, its validation queued), fails
// it with the window's error, or hands it back to the one-turn path. Each transition is
// conditional on the item still waiting, so of two windows holding one turn only one finishes it.
import { Prisma, type DbOrTx, type ErrorClass, type Tx, type WorkItem } from "@recall/db";
import { QUEUES } from "../registry";
import { startingPayload, startingStatus, type NewWorkItem } from "./create-items";
import { itemColumns, jsonb } from "./item-row";

/** The turns' items and their open attempts wait for window `windowId` (a batch's turn leaves its batch). */
export async function handOverToWindow(tx: Tx, workItemIds: readonly string[], windowId: string): Promise<void> {
  await tx.$executeRaw`
    WITH items AS (
      UPDATE work_items SET status = 'waiting', payload = (payload - 'batch_id') || ${jsonb({ mode: "windowed", window_id: windowId })}
      WHERE id = ANY(${[...workItemIds]}::uuid[]) RETURNING id
    )
    UPDATE work_attempts a SET status = 'waiting' FROM items WHERE a.work_item_id = items.id AND a.status = 'running'`;
}

/** The turns of a split window now belong to `windowId` (shown on their items). */
export async function assignWindow(tx: Tx, turnIds: readonly string[], windowId: string): Promise<void> {
  await tx.$executeRaw`
    UPDATE work_items SET payload = payload || ${jsonb({ window_id: windowId })}
    WHERE queue = 'extract_assertions' AND subject_type = 'turn' AND subject_id = ANY(${[...turnIds]}::uuid[])`;
}

/**
 * The window read these turns: each item still waiting succeeds with its own payload and its validation is queued
 * (`next` with the turn as subject), in one statement for all of them. Answers the items claimed; a turn another
 * window (or an operator's retry) took meanwhile is left out. The claimed rows stay locked until the caller's
 * transaction ends, so that caller may then stage their candidates.
 */
export async function finishWaitingTurns(
  tx: Tx,
  turns: readonly { workItemId: string; turnId: string; traceId: string; payload: Record<string, unknown> }[],
  next: Omit<NewWorkItem, "subjectId" | "subjectType" | "traceId">,
): Promise<string[]> {
  if (turns.length === 0) return [];
  const each: NewWorkItem = { ...next, subjectType: "turn", subjectId: "", traceId: "" };
  // A turn extracted again (once a model was set) finds its validation finished: it runs again, with this window.
  const keep = Prisma.sql`w.status IN ('queued', 'running', 'waiting')`;
  const rows = await tx.$queryRaw<{ id: string }[]>`
    WITH input AS (
      SELECT * FROM unnest(${turns.map((t) => t.workItemId)}::uuid[], ${turns.map((t) => t.turnId)}::uuid[], ${turns.map((t) => t.traceId)}::text[],
                           ${turns.map((t) => JSON.stringify(t.payload))}::jsonb[]) AS t(id, turn_id, trace_id, payload)
    ), item AS (
      UPDATE work_items w SET status = 'succeeded', finished_at = now(), error_class = NULL, error_message = NULL, payload = input.payload
      FROM input WHERE w.id = input.id AND w.status = 'waiting' RETURNING w.id, input.turn_id, input.trace_id
    ), attempt AS (
      UPDATE work_attempts a SET status = 'succeeded', finished_at = now() FROM item WHERE a.work_item_id = item.id AND a.status = 'waiting'
    ), next AS (
      INSERT INTO work_items AS w (id, context_id, queue, subject_type, subject_id, trace_id, max_attempts, payload, status)
      SELECT gen_random_uuid(), ${next.contextId}::uuid, ${next.queue}, 'turn', item.turn_id, item.trace_id,
        ${QUEUES[next.queue].attempts}, ${jsonb(startingPayload(each))}, ${startingStatus(each)}::"WorkStatus"
      FROM item
      ON CONFLICT (queue, subject_type, subject_id) DO UPDATE SET
        status = CASE WHEN ${keep} THEN w.status ELSE excluded.status END,
        error_class = CASE WHEN ${keep} THEN w.error_class END,
        error_message = CASE WHEN ${keep} THEN w.error_message END,
        finished_at = CASE WHEN ${keep} THEN w.finished_at END,
        payload = CASE WHEN ${keep} THEN w.payload ELSE (w.payload - 'truth_maintained_at' - 'window_id' - 'batch_id') || excluded.payload END
    )
    SELECT id FROM item`;
  return rows.map((r) => r.id);
}

/** The window gave up for good: its waiting turns are dead with its error, each retryable alone. */
export async function failWaitingTurns(db: DbOrTx, turnIds: readonly string[], errorClass: ErrorClass, message: string): Promise<void> {
  await db.$executeRaw`
    WITH items AS (
      UPDATE work_items SET status = 'dead', error_class = ${errorClass}::"ErrorClass", error_message = ${message}, finished_at = now()
      WHERE queue = 'extract_assertions' AND subject_type = 'turn' AND subject_id = ANY(${[...turnIds]}::uuid[]) AND status = 'waiting'
      RETURNING id
    )
    UPDATE work_attempts a SET status = 'dead', error_class = ${errorClass}::"ErrorClass", error_message = ${message}, finished_at = now()
    FROM items WHERE a.work_item_id = items.id AND a.status = 'waiting'`;
}

/**
 * A turn no window can read goes the one-turn way: queued again with `payload`, its waiting attempt
 * closed as failed with why; undefined when it is no longer waiting (another window finished it).
 */
export async function returnWaitingTurn(
  db: DbOrTx,
  workItemId: string,
  payload: Record<string, unknown>,
  why: string,
): Promise<WorkItem | undefined> {
  const [row] = await db.$queryRaw<WorkItem[]>`
    WITH item AS (
      UPDATE work_items w SET status = 'queued', payload = ${jsonb(payload)}, finished_at = NULL
      WHERE id = ${workItemId}::uuid AND status = 'waiting' RETURNING w.*
    ), attempt AS (
      UPDATE work_attempts a SET status = 'failed', error_message = ${why}, finished_at = now()
      FROM item WHERE a.work_item_id = item.id AND a.status = 'waiting'
    )
    SELECT ${itemColumns("item")} FROM item`;
  return row;
}
