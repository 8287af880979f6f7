// What bench:facts reads of the store once a context's work is done, beside facts-counts.ts:
// supersessions with both values and their quotes (for a person to audit), each pipeline
// stage's time from its work items' attempts, and row bytes per table.
import type pg from "pg";

export interface Supersession {
  kind: "attribute" | "relation";
  subject: string;
  key: string;
  older: { value: string; quote: string };
  newer: { value: string; quote: string };
}

const SUPERSESSIONS = `
  SELECT s.fact_kind AS kind, e.name AS subject, fo.key, fo.value AS older_value, ao.quote AS older_quote,
         fn.value AS newer_value, an.quote AS newer_quote
    FROM supersessions s
    JOIN attributes fo ON fo.id = s.older_id JOIN attributes fn ON fn.id = s.newer_id
    JOIN entities e ON e.id = fo.entity_id
    JOIN assertions ao ON ao.id = fo.assertion_id JOIN assertions an ON an.id = fn.assertion_id
   WHERE s.context_id = $1 AND s.fact_kind = 'attribute' AND s.undone_at IS NULL
  UNION ALL
  SELECT s.fact_kind, e.name, fo.predicate, oo.name, ao.quote, onw.name, an.quote
    FROM supersessions s
    JOIN relations fo ON fo.id = s.older_id JOIN relations fn ON fn.id = s.newer_id
    JOIN entities e ON e.id = fo.subject_id JOIN entities oo ON oo.id = fo.object_id JOIN entities onw ON onw.id = fn.object_id
    JOIN assertions ao ON ao.id = fo.assertion_id JOIN assertions an ON an.id = fn.assertion_id
   WHERE s.context_id = $1 AND s.fact_kind = 'relation' AND s.undone_at IS NULL`;

export async function readSupersessions(pool: pg.Pool, contextId: string): Promise<Supersession[]> {
  const { rows } = await pool.query<Record<string, string>>(SUPERSESSIONS, [contextId]);
  return rows.map((r) => ({
    kind: r.kind as Supersession["kind"],
    subject: r.subject!,
    key: r.key!,
    older: { value: r.older_value!, quote: r.older_quote! },
    newer: { value: r.newer_value!, quote: r.newer_quote! },
  }));
}

export interface StageTime {
  /** Sum of the attempts' wall_ms; a group's turns each count the group's time so far, so for batches this over-counts. */
  summedMs: number;
  /** Time at least one attempt of the stage was running (the union of the attempts' intervals). */
  busyMs: number;
  attempts: number;
}

const STAGES = ["validate_artifacts", "commit_artifacts", "truth_maintenance"] as const;

export async function readStageTimes(pool: pg.Pool, contextIds: string[]): Promise<Record<string, StageTime>> {
  const { rows } = await pool.query<{ queue: string; wall_ms: number | null; started: number; finished: number | null }>(
    `SELECT w.queue, a.wall_ms, extract(epoch FROM a.started_at) * 1000 AS started, extract(epoch FROM a.finished_at) * 1000 AS finished
       FROM work_attempts a JOIN work_items w ON w.id = a.work_item_id
      WHERE w.context_id = ANY($1::uuid[]) AND w.queue = ANY($2::text[])`,
    [contextIds, STAGES],
  );
  return Object.fromEntries(
    STAGES.map((queue) => {
      const mine = rows.filter((r) => r.queue === queue);
      const intervals = mine.map((r) => [Number(r.started), Number(r.finished ?? r.started)] as [number, number]);
      const summedMs = mine.reduce((s, r) => s + (r.wall_ms ?? 0), 0);
      return [queue, { summedMs, busyMs: unionLength(intervals), attempts: mine.length }];
    }),
  );
}

function unionLength(intervals: [number, number][]): number {
  let total = 0;
  let end = -Infinity;
  for (const [a, b] of intervals.sort((x, y) => x[0] - y[0])) {
    if (b <= end) continue;
    total += b - Math.max(a, end);
    end = b;
  }
  return total;
}

/** Row bytes (pg_column_size of each row; indexes and TOAST overhead left out) per table holding a context_id. */
export async function readBytesByTable(pool: pg.Pool, contextIds: string[]): Promise<Record<string, number>> {
  const { rows: tables } = await pool.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.columns
      WHERE table_schema = 'public' AND column_name = 'context_id' ORDER BY table_name`,
  );
  const bytes: Record<string, number> = {};
  for (const { table_name: table } of tables) {
    const { rows } = await pool.query<{ b: string | null }>(
      `SELECT sum(pg_column_size(t.*))::bigint AS b FROM "${table}" t WHERE t.context_id = ANY($1::uuid[])`,
      [contextIds],
    );
    const b = Number(rows[0]?.b ?? 0);
    if (b > 0) bytes[table] = b;
  }
  return bytes;
}
