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

export interface CompactedWork {
  workItems: number;
  attempts: number;
  plans: number;
  outboxEvents: number;
}

/**
 * Compacts the work items of inputs whose every stage succeeded before `before` (and whose commit's announcement was
 * relayed): their attempts, extraction plans and relayed announcements are deleted, their payload cut to KEPT_PAYLOAD_KEYS. The rows and every
 * column a work item is shown with stay, so provenance, turn and document status and usage read them as before.
 */
export async function compactFinishedWork(db: DbOrTx, { before, limit }: CompactStep): Promise<CompactedWork> {
  const [row] = await db.$queryRaw<{ items: number; attempts: number; plans: number; outbox: number }[]>`
    WITH picked AS (
      SELECT w.id FROM work_items w
      WHERE w.status = 'succeeded' AND w.compacted_at IS NULL AND w.finished_at < ${before}
        AND NOT EXISTS (
          SELECT 1 FROM work_items o
          WHERE o.subject_id = w.subject_id AND o.subject_type = w.subject_type
            AND (o.status <> 'succeeded' OR o.finished_at >= ${before}
              OR EXISTS (SELECT 1 FROM outbox_events e WHERE e.work_item_id = o.id AND e.processed_at IS NULL)))
      ORDER BY w.finished_at LIMIT ${limit} FOR UPDATE OF w SKIP LOCKED
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
    )
    SELECT (SELECT count(*) FROM items)::int AS items, (SELECT count(*) FROM attempts)::int AS attempts,
      (SELECT count(*) FROM plans)::int AS plans, (SELECT count(*) FROM outbox)::int AS outbox`;
  return { workItems: row?.items ?? 0, attempts: row?.attempts ?? 0, plans: row?.plans ?? 0, outboxEvents: row?.outbox ?? 0 };
}
