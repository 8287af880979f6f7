// Retention of the pipeline's records on real Postgres: finished work past the cutoff compacted, recent and unfinished
// work left exactly as it was whatever its age, and model calls summed into days exactly once however many runs race.
import { randomUUID } from "node:crypto";
import { waitFor } from "@recall/test-support";
import { PipelineRetention, compactPipelineRecords, retentionCutoff } from "./pipeline-retention";
import { db, logger, useQueueTestEnv } from "./testing/queue-test-env";
import { rollUpModelCalls } from "./work-state";

useQueueTestEnv();
afterEach(async () => {
  await db.$executeRaw`TRUNCATE work_items, work_attempts, extraction_plans, outbox_events, model_calls, model_call_days`;
});

const DAY_MS = 86_400_000;
const NOW = new Date();
const OLD = new Date(NOW.getTime() - 40 * DAY_MS);
const RECENT = new Date(NOW.getTime() - 2 * DAY_MS);
const retention = (batchRows = 1_000) => ({ db, logger, days: 30, batchRows });

/** One stage's item of `subject`, finished (or last touched) at `at`, with an attempt. */
async function item(subject: string, queue: string, status: string, at: Date, payload: object = {}): Promise<string> {
  const id = randomUUID();
  const finished = ["queued", "running", "waiting"].includes(status) ? null : at;
  await db.$executeRaw`
    INSERT INTO work_items (id, context_id, queue, subject_type, subject_id, status, attempts, max_attempts, trace_id, payload,
      created_at, started_at, finished_at)
    VALUES (${id}::uuid, ${randomUUID()}::uuid, ${queue}, 'turn', ${subject}::uuid, ${status}::"WorkStatus", 1, 3, ${"a".repeat(32)},
      ${JSON.stringify(payload)}::jsonb, ${at}, ${at}, ${finished})`;
  await db.$executeRaw`
    INSERT INTO work_attempts (id, work_item_id, attempt, status, started_at, finished_at)
    VALUES (gen_random_uuid(), ${id}::uuid, 1, ${status}::"WorkStatus", ${at}, ${finished})`;
  return id;
}

/** A turn's four stages in `statuses` order, its plan, and its commit's announcement (relayed unless said). */
async function turn(at: Date, statuses = ["succeeded", "succeeded", "succeeded", "succeeded"], relayed = true) {
  const subject = randomUUID();
  const outcomes = [{ node_id: null, stage: "fast", model: "m", reason: "r", tokens_used: 5 }];
  const payloads = [
    { outcomes, mode: "interactive", trace: { traceparent: "x" } },
    { staged: [1, 2, 3] },
    { disambiguations: {} },
    {
      truth_maintained_at: at.toISOString(),
    },
  ];
  const queues = ["extract_assertions", "validate_artifacts", "commit_artifacts", "truth_maintenance"];
  const ids = [];
  for (const [i, status] of statuses.entries()) ids.push(await item(subject, queues[i]!, status, at, payloads[i]));
  await db.$executeRaw`
    INSERT INTO extraction_plans (id, context_id, subject_type, subject_id, skill_id, skill_source, created_at)
    VALUES (gen_random_uuid(), ${randomUUID()}::uuid, 'turn', ${subject}::uuid, 'general', 'default', ${at})`;
  if (statuses[2] === "succeeded") {
    await db.$executeRaw`
      INSERT INTO outbox_events (id, context_id, type, work_item_id, payload, trace_id, created_at, processed_at)
      VALUES (gen_random_uuid(), ${randomUUID()}::uuid, 'artifacts_committed', ${ids[2]}::uuid, '{}', 't', ${at}, ${relayed ? at : null})`;
  }
  return { subject, ids };
}

const rowsOf = (subject: string) =>
  db.$queryRaw<object[]>`
    SELECT w.*, (SELECT json_agg(a ORDER BY a.attempt) FROM work_attempts a WHERE a.work_item_id = w.id) AS attempt_rows,
      (SELECT count(*)::int FROM extraction_plans p WHERE p.subject_id = w.subject_id) AS plans,
      (SELECT json_agg(o) FROM outbox_events o WHERE o.work_item_id = w.id) AS outbox
    FROM work_items w WHERE w.subject_id = ${subject}::uuid ORDER BY w.queue`;

test("old finished work is compacted; recent work, and old work with any stage unfinished, stays as it was", async () => {
  const old = await turn(OLD);
  const recent = await turn(RECENT);
  const kept = [
    await turn(OLD, ["succeeded", "succeeded", "dead"]),
    await turn(OLD, ["succeeded", "failed"]),
    await turn(OLD, ["awaiting_model", "succeeded", "succeeded", "succeeded"]),
    await turn(OLD, ["succeeded", "succeeded", "running"]),
    await turn(OLD, ["queued"]),
    await turn(OLD, ["waiting"]),
    await turn(OLD, ["succeeded", "succeeded", "cancelled"]),
    // Committed, but its announcement never reached truth maintenance: work still to do.
    await turn(OLD, ["succeeded", "succeeded", "succeeded"], false),
  ];
  const before = await Promise.all([recent, ...kept].map((t) => rowsOf(t.subject)));

  const report = await compactPipelineRecords(retention(3), NOW);
  expect(report).toMatchObject({ busy: false, workItems: 4, attempts: 4, plans: 1, outboxEvents: 1 });
  expect(await Promise.all([recent, ...kept].map((t) => rowsOf(t.subject)))).toEqual(before);

  const compacted = await db.workItem.findMany({ where: { subjectId: old.subject }, orderBy: { queue: "asc" } });
  expect(compacted.map((w) => [w.queue, w.status, w.payload, w.compactedAt !== null])).toEqual([
    ["commit_artifacts", "succeeded", {}, true],
    ["extract_assertions", "succeeded", { outcomes: [{ node_id: null, stage: "fast", model: "m", reason: "r", tokens_used: 5 }] }, true],
    ["truth_maintenance", "succeeded", { truth_maintained_at: OLD.toISOString() }, true],
    ["validate_artifacts", "succeeded", {}, true],
  ]);
  expect(await db.workAttempt.count({ where: { workItemId: { in: old.ids } } })).toBe(0);
  expect(await db.extractionPlan.count({ where: { subjectId: old.subject } })).toBe(0);
  expect(await db.outboxEvent.count({ where: { workItemId: old.ids[2] } })).toBe(0);

  // Idempotent: a second run finds nothing.
  expect(await compactPipelineRecords(retention(3), NOW)).toMatchObject({ workItems: 0, attempts: 0, plans: 0, outboxEvents: 0 });
  // Off: nothing at all.
  await turn(OLD);
  expect(await compactPipelineRecords({ ...retention(), days: 0 }, NOW)).toMatchObject({ workItems: 0, modelCalls: 0 });
});

interface DaySum {
  context_id: string;
  day: string;
  stage: string;
  model: string;
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cost: string;
  unpriced: number;
}

/** The sums usage would read for every call before `before`, wherever each call is now (a row or a day's sum). */
const sums = (before: Date) =>
  db.$queryRaw<DaySum[]>`
    SELECT context_id::text, day::text, stage, model, sum(calls)::int AS calls, sum(input_tokens)::int AS input_tokens,
      sum(output_tokens)::int AS output_tokens, sum(cost)::text AS cost, sum(unpriced)::int AS unpriced
    FROM (
      SELECT context_id, (created_at AT TIME ZONE 'UTC')::date AS day, stage, model, 1 AS calls, input_tokens, output_tokens,
        coalesce(cost_usd::numeric, 0) AS cost, (cost_usd IS NULL)::int AS unpriced
      FROM model_calls WHERE created_at < ${before}
      UNION ALL
      SELECT context_id, day, stage, model, calls, input_tokens, output_tokens, cost_usd, unpriced_calls FROM model_call_days
    ) s GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`;

test("model calls are summed into days exactly once, however many runs race, and recent calls stay rows", async () => {
  const contexts = [randomUUID(), randomUUID()];
  // 1,200 old calls over three days, two contexts, two stages, priced (odd fractions of a dollar) and unpriced; 40 recent.
  await db.$executeRaw`
    INSERT INTO model_calls (id, context_id, work_item_id, attempt, queue, stage, model, outcome, input_tokens, output_tokens, cost_usd, created_at)
    SELECT gen_random_uuid(), (${contexts}::uuid[])[1 + i % 2], gen_random_uuid(), 1, 'extract_assertions',
      CASE WHEN i % 3 = 0 THEN 'strong' ELSE 'fast' END, 'openai:m', 'ok', 100 + i, 7 + i % 11,
      CASE WHEN i % 5 = 0 THEN NULL ELSE (i * 0.000137) / 3 END,
      ${OLD}::timestamptz - (i % 3) * interval '1 day' - (i % 97) * interval '7 minutes'
    FROM generate_series(1, 1200) i`;
  await db.$executeRaw`
    INSERT INTO model_calls (id, context_id, work_item_id, attempt, queue, stage, model, outcome, input_tokens, output_tokens, cost_usd, created_at)
    SELECT gen_random_uuid(), ${contexts[0]}::uuid, gen_random_uuid(), 1, 'extract_assertions', 'fast', 'openai:m', 'ok', 10, 1, 0.1, ${RECENT}
    FROM generate_series(1, 40)`;
  const cutoff = retentionCutoff(NOW, 30);
  const expected = await sums(cutoff);
  expect(expected.reduce((n, s) => n + s.calls, 0)).toBe(1_200);

  // The statement alone, without the retention lock: three loops of small batches, interleaved.
  const drain = async () => {
    let total = 0;
    for (let n = -1; n !== 0; total += n) n = await rollUpModelCalls(db, { before: cutoff, limit: 37 });
    return total;
  };
  const moved = await Promise.all([drain(), drain(), drain()]);
  expect(moved.reduce((a, b) => a + b, 0)).toBe(1_200);
  expect(await sums(cutoff)).toEqual(expected);
  expect(await db.modelCall.count({ where: { createdAt: { lt: cutoff } } })).toBe(0);
  expect(await db.modelCall.count()).toBe(40);

  // The whole run, twice at once with more old calls: one compacts, the other finds the lock taken or nothing left.
  await db.$executeRaw`
    INSERT INTO model_calls (id, context_id, work_item_id, attempt, queue, stage, model, outcome, input_tokens, output_tokens, cost_usd, created_at)
    SELECT gen_random_uuid(), ${contexts[1]}::uuid, gen_random_uuid(), 1, 'extract_assertions', 'fast', 'openai:m', 'ok', 3, 2, 0.000001, ${OLD}
    FROM generate_series(1, 250)`;
  const again = await sums(cutoff);
  const runs = await Promise.all([compactPipelineRecords(retention(20), NOW), compactPipelineRecords(retention(20), NOW)]);
  expect(runs[0]!.modelCalls + runs[1]!.modelCalls).toBe(250);
  expect(await sums(cutoff)).toEqual(again);
  expect(await db.modelCall.count()).toBe(40);
});

test("the cutoff is the UTC midnight RECALL_PIPELINE_RETENTION_DAYS before now", () => {
  expect(retentionCutoff(new Date("2026-12-07T15:20:00Z"), 30).toISOString()).toBe("2026-11-07T00:00:00.000Z");
  expect(retentionCutoff(new Date("2026-12-07T00:00:00Z"), 8).toISOString()).toBe("2026-11-29T00:00:00.000Z");
});

test("a worker process's retention runs as it starts, and stops with it", async () => {
  const old = await turn(OLD);
  const on = new PipelineRetention({ ...retention(), everyMs: 60_000 });
  on.start();
  try {
    await waitFor(async () => (await db.workAttempt.count({ where: { workItemId: { in: old.ids } } })) === 0, { what: "the first run" });
  } finally {
    await on.stop();
  }
});
