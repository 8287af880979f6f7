// Where an interactive turn's time goes while background work (wait: false turns, batches, documents) keeps the
// machine busy: the fault harness's mixed load (apps/api/src/testing/fault-load.ts) without faults for
// MIXED_SECONDS (default 60) from MIXED_LANES clients (default 4), the workers at WORKER_CONCURRENCY (default 4);
// then, per stage and class (interactive or background), the mean and median wait in the queue and the mean run.
// First, in the same run, the idle baseline: one client sending interactive turns only for IDLE_SECONDS (default
// 20); the figure to read is the interactive p50 under load as a multiple of it (goal <= 3x).
//   pnpm exec tsx bench/load/mixed-load-stages.ts
// Runs on a database and queue prefix of its own (dropped after), against DATABASE_URL/REDIS_URL.
import { randomBytes } from "node:crypto";
import { loadConfig } from "@recall/config";
import { migrate } from "@recall/db/migrator";
import { adminQuery, withDatabase } from "@recall/test-support";
import { FaultLoad, percentile } from "../../apps/api/src/testing/fault-load";
import { FAULT_ADMIN_KEY, startFaultService } from "../../apps/api/src/testing/fault-service";

const SECONDS = Number(process.env.MIXED_SECONDS ?? 60);
const LANES = Number(process.env.MIXED_LANES ?? 4);
const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 20);

async function main(): Promise<void> {
  const base = loadConfig();
  const database = `recall_mixed_${randomBytes(4).toString("hex")}`;
  await adminQuery(base.DATABASE_URL, `CREATE DATABASE "${database}"`);
  const databaseUrl = withDatabase(base.DATABASE_URL, database);
  try {
    await migrate(databaseUrl);
    const service = await startFaultService({
      databaseUrl,
      redisUrl: base.REDIS_URL,
      queuePrefix: `{rmixed-${randomBytes(3).toString("hex")}}`,
      overrides: {
        RECALL_FAULT_DELAY_MS: "0",
        LOG_LEVEL: "error",
        WORKER_CONCURRENCY: String(base.WORKER_CONCURRENCY),
        WORKER_BACKGROUND_CONCURRENCY: String(base.WORKER_BACKGROUND_CONCURRENCY),
      },
    });
    try {
      const idle = new FaultLoad({ baseUrl: service.url, adminKey: FAULT_ADMIN_KEY, lanes: 1, retryForMs: 60_000, mix: "interactive" });
      await idle.setup("idle");
      const idleEnd = Date.now() + IDLE_SECONDS * 1_000;
      await idle.run(() => Date.now() > idleEnd);
      const idleMs = idle.stats.interactive.map((l) => l.ms);
      const load = new FaultLoad({ baseUrl: service.url, adminKey: FAULT_ADMIN_KEY, lanes: LANES, retryForMs: 60_000 });
      await load.setup("mixed");
      const end = Date.now() + SECONDS * 1_000;
      await load.run(() => Date.now() > end);
      const ms = load.stats.interactive.map((l) => l.ms);
      const concurrency = `WORKER_CONCURRENCY ${base.WORKER_CONCURRENCY}, WORKER_BACKGROUND_CONCURRENCY ${base.WORKER_BACKGROUND_CONCURRENCY}`;
      console.log(`# ${SECONDS} s of mixed load, ${LANES} clients, ${concurrency}: accepted ${JSON.stringify(load.stats.accepted)}`);
      const [idleP50, loadP50] = [percentile(idleMs, 50), percentile(ms, 50)];
      console.log(
        `interactive turns idle (1 client, ${IDLE_SECONDS} s): p50 ${idleP50} ms, p99 ${percentile(idleMs, 99)} ms (${idleMs.length})`,
      );
      console.log(`interactive turns under load: p50 ${loadP50} ms, p99 ${percentile(ms, 99)} ms (${ms.length})`);
      console.log(`interactive p50 under load / idle: ${(loadP50 / idleP50).toFixed(2)}x (goal <= 3x)`);
      const { rows } = await service.pg.query(`
        WITH extraction AS (
          SELECT subject_id, payload->>'mode' = 'windowed' AS windowed FROM work_items WHERE queue = 'extract_assertions' AND subject_type = 'turn')
        SELECT w.queue, CASE WHEN w.subject_type = 'turn' AND NOT coalesce(e.windowed, false) THEN 'interactive' ELSE 'background' END AS class,
          count(*)::int AS items,
          round(avg(extract(epoch FROM w.started_at - w.created_at) * 1000))::int AS wait_mean_ms,
          round(percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM w.started_at - w.created_at) * 1000))::int AS wait_p50_ms,
          round(avg(extract(epoch FROM w.finished_at - w.started_at) * 1000))::int AS run_mean_ms
        FROM work_items w LEFT JOIN extraction e ON e.subject_id = w.subject_id AND w.subject_type = 'turn'
        WHERE w.finished_at IS NOT NULL AND w.subject_type IN ('turn', 'document', 'window')
        GROUP BY 1, 2 ORDER BY 2 DESC, 1`);
      console.table(rows);
    } finally {
      await service.close();
    }
  } finally {
    await adminQuery(base.DATABASE_URL, `DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  }
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    console.error(err);
    process.exit(1);
  },
);
