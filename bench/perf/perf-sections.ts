// The sections of the performance report (pnpm bench). Each starts its own Recall (real API and
// worker processes, perf-cluster.ts) with a local OpenAI-compatible server standing in for the
// model, and prints its figures beside a floor measured in the same run, as ratios.
import { performance } from "node:perf_hooks";
import pg from "pg";
import { loadConfig } from "@recall/config";
import { startEconomyServer, type EconomyServer } from "../economy/economy-server";
import { ADMIN, rssMiB, startCluster, type Cluster } from "./perf-cluster";
import {
  benchTurns,
  call,
  concurrently,
  cycle,
  fmt,
  newContext,
  newSession,
  percentiles,
  postTurn,
  type Api,
  type TurnText,
} from "./perf-client";
import { turnFloor, writeFloor } from "./perf-floor";

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const redisUrl = () => loadConfig().REDIS_URL;
const modelEnv = (server: EconomyServer, extra: Record<string, string> = {}) => ({
  RECALL_FAST_MODEL: "openai-compatible:bench-fast",
  OPENAI_BASE_URL: server.baseUrl,
  WORKER_CONCURRENCY: String(num("BENCH_WORKER_CONCURRENCY", 4)),
  ...extra,
});

export async function withCluster<T>(
  delayMs: number,
  workers: string[],
  extra: Record<string, string>,
  fn: (c: Cluster, api: Api, s: EconomyServer) => Promise<T>,
) {
  const server = await startEconomyServer("empty", { chatDelayMs: delayMs });
  const cluster = await startCluster({ env: modelEnv(server, extra), workers });
  try {
    return await fn(cluster, await newContext(cluster.baseUrl, ADMIN), server);
  } finally {
    await cluster.close();
    await server.close();
  }
}

/** Sequential turns, instant model: latency percentiles against the turn floor. */
export async function latencySection(): Promise<void> {
  const n = num("BENCH_LATENCY_TURNS", 500);
  await withCluster(0, [""], {}, async (cluster, api) => {
    const session = await newSession(api);
    const turns = cycle(benchTurns("any"), n + 20);
    for (const t of turns.slice(0, 20)) await postTurn(api, session, t);
    const times: number[] = [];
    const outcomes = new Map<string, number>();
    for (const t of turns.slice(20)) {
      const r = await postTurn(api, session, t);
      times.push(r.ms);
      outcomes.set(r.status, (outcomes.get(r.status) ?? 0) + 1);
    }
    const committed = await transactionsCommitted(cluster.databaseUrl);
    const floor = (await turnFloor(cluster.databaseUrl, redisUrl(), Math.min(n, 500) + 20)).slice(20);
    const [p, f] = [percentiles(times), percentiles(floor)];
    console.log(
      `\n## latency: ${n} sequential POST /turns, instant scripted model (${[...outcomes].map(([k, v]) => `${v} ${k}`).join(", ")})`,
    );
    for (const q of ["p50", "p95", "p99"] as const)
      console.log(`  ${q}: ${fmt(p[q])} ms | floor ${fmt(f[q])} ms | ${fmt(p[q] / f[q], 2)}x`);
    await stageReport(cluster.databaseUrl, committed);
  });
}

/** Concurrent clients, instant model: turns/s against single-row write transactions/s at the same concurrency. */
export async function throughputSection(): Promise<void> {
  const clients = num("BENCH_CLIENTS", 8);
  const n = num("BENCH_THROUGHPUT_TURNS", 400);
  await withCluster(0, [""], {}, async (cluster, api) => {
    const sessions = await Promise.all(Array.from({ length: clients }, () => newSession(api)));
    const turns = cycle(benchTurns("any"), n);
    const started = performance.now();
    await concurrently(turns, clients, async (t, i) => void (await postTurn(api, sessions[i % clients]!, t)));
    const rate = n / ((performance.now() - started) / 1000);
    const committed = await transactionsCommitted(cluster.databaseUrl);
    const floor = await writeFloor(cluster.databaseUrl, clients, 5);
    console.log(`\n## throughput: ${n} turns from ${clients} concurrent clients, instant scripted model`);
    console.log(`  ${fmt(rate)} turns/s | write floor ${fmt(floor)} single-row tx/s at ${clients} connections | ${fmt(rate / floor, 3)}x`);
    await stageReport(cluster.databaseUrl, committed);
  });
}

/**
 * History import: BENCH_BULK_TURNS (2,000) LoCoMo turns posted in batches of 500 (one session each), instant
 * scripted model; turns/s from the first POST to every turn committed, and Postgres transactions per imported
 * turn (the bench's own progress reads are counted and left out).
 */
export async function bulkSection(): Promise<void> {
  const n = num("BENCH_BULK_TURNS", 2_000);
  const batch = 500;
  await withCluster(0, [""], {}, async (cluster, api) => {
    const turns = cycle(benchTurns("any"), n);
    const pool = new pg.Pool({ connectionString: cluster.databaseUrl, max: 1 });
    try {
      const before = await transactionsCommitted(cluster.databaseUrl);
      const started = performance.now();
      for (let i = 0; i < n; i += batch) await postBatch(api, await newSession(api), turns.slice(i, i + batch));
      const { polls, dead } = await waitAllCommitted(pool, n);
      const seconds = (performance.now() - started) / 1000;
      const after = await transactionsCommitted(cluster.databaseUrl);
      const perTurn = (after.commits - before.commits - polls) / (after.turns - before.turns);
      console.log(`\n## bulk import: ${n} LoCoMo turns in batches of ${batch}, instant scripted model${dead ? ` (${dead} failed)` : ""}`);
      console.log(`  ${fmt(n / seconds)} turns/s to all committed (${fmt(seconds)} s) | goal >= 100`);
      console.log(`  Postgres transactions per imported turn: ${fmt(perTurn, 2)} | goal <= 4`);
      await stageReport(cluster.databaseUrl, after);
    } finally {
      await pool.end();
    }
  });
}

async function postBatch(api: Api, session: string, turns: TurnText[]): Promise<void> {
  const body = { turns: turns.map((t) => ({ role: "user", content: t.text, name: t.speaker, scope: ["org=perf"] })) };
  const res = await call(api, "POST", `/sessions/${session}/turns/batch`, body);
  if (res.status !== 202) throw new Error(`batch refused: ${res.status} ${JSON.stringify(res.body)}`);
}

/** Polls (every 500 ms, one transaction each) until `n` turns are committed or failed; gives up after 10 minutes. */
async function waitAllCommitted(pool: pg.Pool, n: number): Promise<{ polls: number; dead: number }> {
  for (let polls = 1; ; polls++) {
    const { rows } = await pool.query<{ done: number; dead: number }>(
      `SELECT count(*) FILTER (WHERE queue = 'truth_maintenance' AND (status = 'succeeded' OR payload ? 'truth_maintained_at'))::int AS done,
              count(DISTINCT subject_id) FILTER (WHERE status = 'dead')::int AS dead
         FROM work_items WHERE subject_type = 'turn'`,
    );
    const { done, dead } = rows[0]!;
    if (done + dead >= n) return { polls, dead };
    if (polls >= 1_200) throw new Error(`after 10 minutes ${done} of ${n} turns committed, ${dead} failed`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Model answering after 300 ms: turns/s against processes × concurrency ÷ latency, with 1..N extract worker processes. */
export async function modelBoundSection(processes: number[]): Promise<void> {
  const concurrency = num("BENCH_WORKER_CONCURRENCY", 4);
  const delay = num("BENCH_MODEL_DELAY_MS", 300);
  const n = num("BENCH_MODEL_TURNS", 120);
  const modelTurns = benchTurns("model");
  const clientsNote = process.env.BENCH_MODEL_CLIENTS ? `; ${process.env.BENCH_MODEL_CLIENTS} clients` : "";
  console.log(
    `\n## model-bound: ${n} turns that need the model, answered after ${delay} ms; worker concurrency ${concurrency}${clientsNote}`,
  );
  for (const procs of processes) {
    const workers = [
      "validate_artifacts,commit_artifacts,truth_maintenance,extract_window",
      ...Array.from({ length: procs }, () => "extract_assertions"),
    ];
    await withCluster(delay, workers, {}, async (_cluster, api, server) => {
      // Each client waits for its turn's whole pipeline before sending the next, so the clients bound the rate too.
      const clients = num("BENCH_MODEL_CLIENTS", procs * concurrency * 2);
      const sessions = await Promise.all(Array.from({ length: clients }, () => newSession(api)));
      const started = performance.now();
      const outcomes = new Map<string, number>();
      await concurrently(cycle(modelTurns, n), clients, async (t, i) => {
        const { status } = await postTurn(api, sessions[i % clients]!, t);
        outcomes.set(status, (outcomes.get(status) ?? 0) + 1);
      });
      const rate = n / ((performance.now() - started) / 1000);
      const ideal = (procs * concurrency) / (delay / 1000);
      const answered = [...outcomes].map(([k, v]) => `${v} ${k}`).join(", ");
      console.log(
        `  ${procs} extract process(es): ${fmt(rate, 2)} turns/s | ideal ${fmt(ideal, 2)} | ${fmt(rate / ideal, 2)}x (${server.counts.chatCalls} model calls; ${answered})`,
      );
    });
  }
}

/** RECALL_MODEL_RPM across processes: the most model requests in any 60 s window never exceeds it. */
export async function rpmSection(): Promise<void> {
  const rpm = num("BENCH_RPM", 30);
  const n = Math.ceil(rpm * 1.5);
  const workers = ["validate_artifacts,commit_artifacts,truth_maintenance,extract_window", "extract_assertions", "extract_assertions"];
  await withCluster(0, workers, { RECALL_MODEL_RPM: String(rpm), TURN_TIMEOUT_MS: "180000" }, async (_cluster, api, server) => {
    const sessions = await Promise.all(Array.from({ length: n }, () => newSession(api)));
    const started = performance.now();
    await concurrently(cycle(benchTurns("model"), n), n, async (t, i) => void (await postTurn(api, sessions[i]!, t)));
    const seconds = (performance.now() - started) / 1000;
    const times = server.chatTimes;
    const most = Math.max(...times.map((t) => times.filter((u) => u >= t && u < t + 60_000).length));
    console.log(`\n## provider RPM limit ${rpm} (two extract processes): ${n} model turns at once`);
    console.log(`  most requests in any 60 s: ${most} (limit ${rpm}); ${times.length} requests in ${fmt(seconds)} s`);
  });
}

/** Resident memory of the API and worker processes after 5,000 and 10,000 turns. */
export async function memorySection(): Promise<void> {
  const total = num("BENCH_MEMORY_TURNS", 10_000);
  const clients = num("BENCH_CLIENTS", 8);
  await withCluster(0, [""], {}, async (cluster, api) => {
    const turns = cycle(benchTurns("any"), total);
    const sessions = await Promise.all(Array.from({ length: Math.ceil(total / 400) }, () => newSession(api)));
    const rss = () => ({ api: rssMiB(cluster.api), worker: rssMiB(cluster.workers[0]!) });
    let half: { api: number; worker: number } | undefined;
    let posted = 0;
    const started = performance.now();
    await concurrently(turns, clients, async (t, i) => {
      await postTurn(api, sessions[Math.floor(i / 400)]!, t);
      if (++posted === Math.floor(total / 2)) half = rss();
    });
    const end = rss();
    const grow = (a: number, b: number) => `${fmt(((b - a) / a) * 100)}%`;
    console.log(`\n## memory: ${total} turns (${fmt(total / ((performance.now() - started) / 1000))} turns/s, ${clients} clients)`);
    console.log(`  API RSS ${fmt(half!.api)} MiB at ${total / 2} → ${fmt(end.api)} MiB at ${total}: ${grow(half!.api, end.api)}`);
    console.log(
      `  worker RSS ${fmt(half!.worker)} MiB at ${total / 2} → ${fmt(end.worker)} MiB at ${total}: ${grow(half!.worker, end.worker)}`,
    );
  });
}

/** Where a turn's time goes: per stage, mean wait in the queue and mean run time. The largest wait is the stage that saturates. */
/**
 * Transactions committed in the run's database so far, with the turns stored. Read before a floor is measured in
 * the same database, so its own transactions are not counted as the pipeline's. Backends report their counts
 * when idle (at most once a second), hence the pause.
 */
async function transactionsCommitted(databaseUrl: string): Promise<{ commits: number; turns: number }> {
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    const { rows } = await pool.query(
      `SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database())::float AS commits,
              (SELECT count(*) FROM turns)::float AS turns`,
    );
    return rows[0] as { commits: number; turns: number };
  } finally {
    await pool.end();
  }
}

async function stageReport(databaseUrl: string, committed: { commits: number; turns: number }): Promise<void> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    const { rows } = await pool.query(`
      SELECT queue, count(*)::int AS n,
        avg(extract(epoch FROM started_at - created_at) * 1000)::float AS wait_ms,
        avg(extract(epoch FROM finished_at - started_at) * 1000)::float AS run_ms
      FROM work_items WHERE subject_type = 'turn' AND finished_at IS NOT NULL GROUP BY queue`);
    const order = ["extract_assertions", "validate_artifacts", "commit_artifacts", "truth_maintenance"];
    const sorted = rows.sort((a, b) => order.indexOf(a.queue) - order.indexOf(b.queue));
    console.log(
      `  per stage (mean wait in queue + run): ${sorted.map((r) => `${r.queue} ${fmt(r.wait_ms)}+${fmt(r.run_ms)} ms`).join(", ")}`,
    );
    const worst = [...sorted].sort((a, b) => b.wait_ms + b.run_ms - (a.wait_ms + a.run_ms))[0];
    if (worst) console.log(`  slowest stage: ${worst.queue}`);
    // What bounds throughput from below the write floor: every Postgres transaction the run committed before its
    // floor was measured (set-up, reads and the workers' polls included), per turn.
    const { commits, turns } = committed;
    if (turns > 0)
      console.log(`  Postgres transactions committed per turn (the run before its floor, reads included): ${fmt(commits / turns, 1)}`);
  } finally {
    await pool.end();
  }
}

export type { TurnText };
