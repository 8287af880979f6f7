// The statements of the pipeline's retention (pipeline-retention.ts runs them): each compacts at most `limit` rows of
// finished work older than `before`, and is safe beside any number of copies of itself. Rows are taken with
// FOR UPDATE SKIP LOCKED, so two runs never take the same row, and a row is moved and deleted in one statement, so a
// model call is summed exactly once. Unfinished work (queued, running, waiting, failed awaiting its retry,
// awaiting_model, dead, cancelled) is never touched, whatever its age.
import type { DbOrTx } from "@recall/db";

/** What a compacted work item keeps of its payload: what readers of finished work use (usage, turn status). */
export const KEPT_PAYLOAD_KEYS = ["outcomes", "failed", "truth_maintained_at"] as const;

export interface CompactStep {
  before: Date;
  limit: number;
}

/**
 * Sums model calls made before `before` into model_call_days (per context, UTC day, stage and model) and deletes them,
 * in one statement. Rollup rows are added to in key order, so two runs at once wait for each other, never deadlock.
 */
export async function rollUpModelCalls(db: DbOrTx, { before, limit }: CompactStep): Promise<number> {
  const [row] = await db.$queryRaw<{ n: number }[]>`
    WITH gone AS (
      DELETE FROM model_calls WHERE id IN (
        SELECT id FROM model_calls WHERE created_at < ${before} ORDER BY created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      RETURNING context_id, created_at, stage, model, input_tokens, output_tokens, cost_usd
    ), summed AS (
      INSERT INTO model_call_days AS d (context_id, day, stage, model, calls, input_tokens, output_tokens, cost_usd, unpriced_calls)
      SELECT context_id, (created_at AT TIME ZONE 'UTC')::date, stage, model, count(*), sum(input_tokens), sum(output_tokens),
        coalesce(sum(cost_usd::numeric), 0), count(*) FILTER (WHERE cost_usd IS NULL)
      FROM gone GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
      ON CONFLICT (context_id, day, stage, model) DO UPDATE SET calls = d.calls + EXCLUDED.calls,
        input_tokens = d.input_tokens + EXCLUDED.input_tokens, output_tokens = d.output_tokens + EXCLUDED.output_tokens,
        cost_usd = d.cost_usd + EXCLUDED.cost_usd, unpriced_calls = d.unpriced_calls + EXCLUDED.unpriced_calls
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM gone)::int AS n, (SELECT count(*) FROM summed)::int AS days`;
  return row?.n ?? 0;
}

/** Where a run's scan of succeeded items has got to: the last (finished_at, id) it looked at. */
export interface WorkCursor {
  finishedAt: Date;
  id: string;
}

export const WORK_CURSOR_START: WorkCursor = { finishedAt: new Date(0), id: "00000000-0000-0000-0000-000000000000" };

export interface CompactedWork {
  /** Items looked at: fewer than the limit when the scan reached the cutoff. */
  scanned: number;
  /** Where the next batch of the same run starts: past the items an unfinished sibling holds back. */
  next: WorkCursor;
  workItems: number;
  attempts: number;
  plans: number;
  outboxEvents: number;
}

interface CompactRow {
  scanned: number;
  last_at: Date | null;
  last_id: string | null;
  items: number;
  attempts: number;
  plans: number;
  outbox: number;
}

/**
 * Compacts the work items of inputs whose every stage succeeded before `before` (and whose commit's announcement was
 * relayed): their attempts, extraction plans and relayed announcements are deleted, their payload cut to
 * KEPT_PAYLOAD_KEYS. The rows and every column a work item is shown with stay, so provenance, turn and document status
 * and usage read them as before. It looks at the next `limit` succeeded, uncompacted items after `after` (in the order
 * of the partial index work_items_compactable_idx), so an item an unfinished sibling holds back costs one look a run.
 */
export async function compactFinishedWork(db: DbOrTx, { before, limit }: CompactStep, after: WorkCursor): Promise<CompactedWork> {
  const [row] = await db.$queryRaw<CompactRow[]>`
    WITH scanned AS (
      SELECT w.id, w.finished_at, w.subject_type, w.subject_id FROM work_items w
      WHERE w.status = 'succeeded' AND w.compacted_at IS NULL AND w.finished_at < ${before}
        AND (w.finished_at, w.id) > (${after.finishedAt}, ${after.id}::uuid)
      ORDER BY w.finished_at, w.id LIMIT ${limit}
    ), picked AS (
      SELECT w.id FROM work_items w JOIN scanned s ON s.id = w.id
      WHERE w.status = 'succeeded' AND w.compacted_at IS NULL
        AND NOT EXISTS (
          SELECT 1 FROM work_items o
          WHERE o.subject_id = s.subject_id AND o.subject_type = s.subject_type
            AND (o.status <> 'succeeded' OR o.finished_at >= ${before}
              OR EXISTS (SELECT 1 FROM outbox_events e WHERE e.work_item_id = o.id AND e.processed_at IS NULL)))
      FOR UPDATE OF w SKIP LOCKED
    ), items AS (
      UPDATE work_items w SET compacted_at = now(), payload = CASE WHEN jsonb_typeof(w.payload) = 'object' THEN
          (SELECT coalesce(jsonb_object_agg(k, v), '{}'::jsonb) FROM jsonb_each(w.payload) AS e(k, v)
           WHERE k = ANY(${[...KEPT_PAYLOAD_KEYS]}::text[]))
        ELSE '{}'::jsonb END
      FROM picked p WHERE w.id = p.id
      RETURNING w.id, w.subject_type, w.subject_id
    ), attempts AS (
      DELETE FROM work_attempts a USING items i WHERE a.work_item_id = i.id RETURNING 1
    ), plans AS (
      DELETE FROM extraction_plans p USING (SELECT DISTINCT subject_type, subject_id FROM items) s
      WHERE p.subject_type = s.subject_type AND p.subject_id = s.subject_id RETURNING 1
    ), outbox AS (
      DELETE FROM outbox_events e USING items i WHERE e.work_item_id = i.id AND e.processed_at IS NOT NULL RETURNING 1
    ), last AS (
      SELECT finished_at, id FROM scanned ORDER BY finished_at DESC, id DESC LIMIT 1
    )
    SELECT (SELECT count(*) FROM scanned)::int AS scanned, (SELECT finished_at FROM last) AS last_at,
      (SELECT id::text FROM last) AS last_id, (SELECT count(*) FROM items)::int AS items,
      (SELECT count(*) FROM attempts)::int AS attempts, (SELECT count(*) FROM plans)::int AS plans,
      (SELECT count(*) FROM outbox)::int AS outbox`;
  const next = row?.last_at && row.last_id ? { finishedAt: row.last_at, id: row.last_id } : after;
  return {
    scanned: row?.scanned ?? 0,
    next,
    workItems: row?.items ?? 0,
    attempts: row?.attempts ?? 0,
    plans: row?.plans ?? 0,
    outboxEvents: row?.outbox ?? 0,
  };
}
