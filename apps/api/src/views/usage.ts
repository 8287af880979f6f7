// What a context (or every context) spent on models over a time range: calls, tokens in and out and the
// estimated cost (from RECALL_MODEL_PRICES_JSON at the time of each call), grouped by day, stage, model or
// context; and the inputs extracted in that range by the stage that finished them (heuristic, fast, strong),
// which says how much of the work needed no model at all. Read from model_calls (one row per call, kept with
// the attempt that made it: a window's one call is one row), from model_call_days for days past
// RECALL_PIPELINE_RETENTION_DAYS (the same calls summed per context, UTC day, stage and model; a day counts when its
// start is in the range), and the extraction work items' outcomes (kept when retention compacts them).
import { Prisma, type Db } from "@recall/db";

export const USAGE_GROUPS = ["day", "stage", "model", "context"] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number];

export interface UsageQuery {
  /** Absent: every context (the admin route). */
  contextId?: string;
  from: Date;
  to: Date;
  groupBy: UsageGroup;
}

interface Sums {
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  /** Calls of models the price table has no price for: their cost is not in cost_usd. */
  unpriced_calls: number;
}

const KEY: Record<UsageGroup, Prisma.Sql> = {
  day: Prisma.sql`to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`,
  stage: Prisma.sql`stage`,
  model: Prisma.sql`model`,
  context: Prisma.sql`context_id::text`,
};

const DAY_KEY: Record<UsageGroup, Prisma.Sql> = { ...KEY, day: Prisma.sql`to_char(day, 'YYYY-MM-DD')` };

const DAY_MS = 86_400_000;
const utcDay = (ms: number) => new Date(ms - (ms % DAY_MS)).toISOString().slice(0, 10);

interface SumRow {
  key: string;
  calls: number;
  input_tokens: bigint | null;
  output_tokens: bigint | null;
  cost_usd: number | null;
  unpriced_calls: number;
}

export async function readUsage(db: Db, q: UsageQuery) {
  const inContext = q.contextId ? Prisma.sql`AND context_id = ${q.contextId}::uuid` : Prisma.empty;
  // The days whose start (UTC midnight) lies in [from, to).
  const [firstDay, lastDay] = [utcDay(q.from.getTime() + DAY_MS - 1), utcDay(q.to.getTime() - 1)];
  const [rows, extracted] = await Promise.all([
    // Costs are added as numeric, exactly, so a day's sum is the same whether its calls are rows or a rollup.
    db.$queryRaw<SumRow[]>`
      SELECT key, sum(calls)::int AS calls, sum(input_tokens)::bigint AS input_tokens, sum(output_tokens)::bigint AS output_tokens,
             sum(cost_usd)::float8 AS cost_usd, sum(unpriced_calls)::int AS unpriced_calls
      FROM (
        SELECT ${KEY[q.groupBy]} AS key, 1 AS calls, input_tokens::bigint AS input_tokens, output_tokens::bigint AS output_tokens,
               cost_usd::numeric AS cost_usd, (cost_usd IS NULL)::int AS unpriced_calls
        FROM model_calls
        WHERE created_at >= ${q.from} AND created_at < ${q.to} ${inContext}
        UNION ALL
        SELECT ${DAY_KEY[q.groupBy]}, calls, input_tokens, output_tokens, cost_usd, unpriced_calls
        FROM model_call_days
        WHERE day >= ${firstDay}::date AND day <= ${lastDay}::date ${inContext}
      ) calls
      GROUP BY 1 ORDER BY 1`,
    db.$queryRaw<{ stage: string; inputs: number }[]>`
      SELECT o.value->>'stage' AS stage, count(*)::int AS inputs
      FROM work_items w
      CROSS JOIN LATERAL jsonb_array_elements(
        CASE WHEN jsonb_typeof(w.payload->'outcomes') = 'array' THEN w.payload->'outcomes' ELSE '[]'::jsonb END) o
      WHERE w.queue = 'extract_assertions' AND w.status = 'succeeded'
        AND w.finished_at >= ${q.from} AND w.finished_at < ${q.to} ${q.contextId ? Prisma.sql`AND w.context_id = ${q.contextId}::uuid` : Prisma.empty}
      GROUP BY 1`,
  ]);
  const groups = rows.map((r) => ({ key: r.key, ...sums(r) }));
  const totals = groups.reduce<Sums>(
    (t, g) => ({
      calls: t.calls + g.calls,
      input_tokens: t.input_tokens + g.input_tokens,
      output_tokens: t.output_tokens + g.output_tokens,
      cost_usd: t.cost_usd + g.cost_usd,
      unpriced_calls: t.unpriced_calls + g.unpriced_calls,
    }),
    { calls: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0, unpriced_calls: 0 },
  );
  const inputs = { heuristic: 0, fast: 0, strong: 0 };
  for (const row of extracted) if (row.stage in inputs) inputs[row.stage as keyof typeof inputs] = row.inputs;
  return {
    ...(q.contextId ? { context_id: q.contextId } : {}),
    from: q.from.toISOString(),
    to: q.to.toISOString(),
    group_by: q.groupBy,
    totals: { ...totals, cost_usd: round(totals.cost_usd), inputs_extracted: inputs },
    groups,
  };
}

function sums(r: SumRow): Sums {
  return {
    calls: r.calls,
    input_tokens: Number(r.input_tokens ?? 0),
    output_tokens: Number(r.output_tokens ?? 0),
    cost_usd: round(r.cost_usd ?? 0),
    unpriced_calls: r.unpriced_calls,
  };
}

/** Micro-dollars: sums of floats would otherwise show as 0.30000000000000004. */
function round(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}
