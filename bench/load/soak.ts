// pnpm soak — mixed load with faults injected at random (#12.10). A script, not a test: it prints what
// happened and exits 1 when anything accepted was lost or duplicated.
//
// For SOAK_MINUTES (default 10) four clients post interactive turns, wait: false turns, history batches and
// documents (each carrying marker facts: apps/worker/src/testing/marker-model.ts) and a fifth reads (/query,
// /profile), while every SOAK_FAULT_EVERY_S (default 15, ±50%) one fault is injected at random:
//   kill       kill -9 of a worker process while it runs a stage (any of them), then a new one
//   provider   the model answers the next calls with a 500, a 429 with retry-after, a hang past LLM_TIMEOUT_MS,
//              a cut-off answer
//   redis      Redis flushed (every job and queue state gone): the sweeper re-enqueues
//   redis-restart   Redis stopped for a few seconds and started again empty (no persistence)
//   postgres   Postgres stopped for a few seconds (a clean shutdown or a crash, in turn) and started again: the API
//              answers 503 with Retry-After meanwhile (the clients retry), the workers wait it out
// The last two need servers the run may stop: it starts a private Postgres and Redis of its own
// (packages/test-support/src/private-servers.ts: under /tmp on free ports; Postgres runs as user postgres). Where
// it cannot (no binaries, not root), or with SOAK_SHARED=1, it runs against DATABASE_URL/REDIS_URL and says that
// those two faults are left out (a Redis flush there deletes only the run's own queue prefix).
// Then the faults stop and the load goes on for SOAK_AFTER_S (default a fifth of the run, at least 30 s), to
// measure latency after them; then it stops, and the run waits (at most SOAK_SETTLE_S, default 300) until no work
// is queued or running before counting. Counted per accepted input: committed exactly once, failed and retryable
// (a stage dead: listed for an operator's retry), lost (neither: must be 0); duplicated rows by the effects audit
// (must be 0). Runs on its own database (created and dropped) and queue prefix.
import { randomBytes } from "node:crypto";
import IORedis from "ioredis";
import { loadConfig } from "@recall/config";
import { migrate } from "@recall/db/migrator";
import { QUEUE_NAMES } from "@recall/pipeline";
import {
  PrivatePostgres,
  PrivateRedis,
  adminQuery,
  auditEffects,
  describeEffects,
  removeQueuePrefix,
  withDatabase,
  type EffectsReport,
} from "@recall/test-support";
import { markerAnswer } from "../../apps/worker/src/testing/marker-model";
import { StageKiller } from "../../apps/worker/src/testing/stage-killer";
import { FaultLoad, percentile, type TurnLatency } from "../../apps/api/src/testing/fault-load";
import { FAULT_ADMIN_KEY, startFaultService, type FaultService } from "../../apps/api/src/testing/fault-service";

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const FAULT_EVERY_S = Number(process.env.SOAK_FAULT_EVERY_S ?? 15);
const AFTER_S = Number(process.env.SOAK_AFTER_S ?? Math.max(30, (MINUTES * 60) / 5));
const SETTLE_S = Number(process.env.SOAK_SETTLE_S ?? 300);
const LLM_TIMEOUT_MS = 5_000;

type Fault = "kill" | "provider" | "redis" | "redis-restart" | "postgres";
const SHARED_FAULTS: Fault[] = ["kill", "kill", "provider", "redis"];
const PRIVATE_FAULTS: Fault[] = ["kill", "kill", "provider", "redis", "redis-restart", "postgres"];

/** The servers the run uses: private ones it may stop, or the shared ones (then only the faults that spare them). */
interface Servers {
  databaseUrl: string;
  redisUrl: string;
  postgres?: PrivatePostgres;
  redis?: PrivateRedis;
  close(): Promise<void>;
}

async function startServers(base: { DATABASE_URL: string; REDIS_URL: string }, database: string): Promise<Servers> {
  if (process.env.SOAK_SHARED !== "1") {
    let postgres: PrivatePostgres | undefined;
    let redis: PrivateRedis | undefined;
    try {
      postgres = await PrivatePostgres.start();
      redis = await PrivateRedis.start();
      await adminQuery(postgres.url(), `CREATE DATABASE "${database}"`);
      const [pg, cache] = [postgres, redis];
      return {
        databaseUrl: pg.url(database),
        redisUrl: cache.url,
        postgres: pg,
        redis: cache,
        async close() {
          await cache.close();
          await pg.close();
        },
      };
    } catch (err) {
      await redis?.close().catch(() => undefined);
      await postgres?.close().catch(() => undefined);
      console.log(`# no private Postgres and Redis (${(err as Error).message}): Postgres and Redis restarts are left out`);
    }
  }
  await adminQuery(base.DATABASE_URL, `CREATE DATABASE "${database}"`);
  return {
    databaseUrl: withDatabase(base.DATABASE_URL, database),
    redisUrl: base.REDIS_URL,
    close: () => adminQuery(base.DATABASE_URL, `DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`).then(() => undefined),
  };
}

async function main(): Promise<number> {
  const base = loadConfig();
  const servers = await startServers(base, `recall_soak_${randomBytes(4).toString("hex")}`);
  let service: FaultService | undefined;
  try {
    await migrate(servers.databaseUrl);
    service = await startFaultService({
      databaseUrl: servers.databaseUrl,
      redisUrl: servers.redisUrl,
      queuePrefix: `{rsoak-${randomBytes(4).toString("hex")}}`,
      overrides: { RECALL_FAULT_DELAY_MS: "0", LLM_TIMEOUT_MS: String(LLM_TIMEOUT_MS), LOG_LEVEL: "error" },
    });
    const where = servers.postgres ? "private Postgres and Redis" : "the shared Postgres and Redis";
    console.log(`# pnpm soak: ${MINUTES} min of faults, then ${AFTER_S} s without, on ${where}; worker logs in ${service.logDir}`);
    return await soak(service, servers);
  } finally {
    await service?.close();
    await servers.close();
  }
}

async function soak(service: FaultService, servers: Servers): Promise<number> {
  const load = new FaultLoad({ baseUrl: service.url, adminKey: FAULT_ADMIN_KEY, lanes: 4, retryForMs: 120_000 });
  await load.setup("soak");
  const started = Date.now();
  const faultsEnd = started + MINUTES * 60_000;
  const loadEnd = faultsEnd + AFTER_S * 1_000;
  const reads: number[] = [];
  const feeding = Promise.all([load.run(() => Date.now() > loadEnd), readLoop(service, load, () => Date.now() > loadEnd, reads)]);
  const injected = await injectFaults(service, servers, () => Date.now() > faultsEnd);
  await feeding;
  const fed = Date.now();
  const settled = await settle(service);
  const report = await auditEffects({ databaseUrl: servers.databaseUrl, accepted: load.accepted, jobState: service.jobState });
  const outcome = await classify(service, load, report);
  printSummary({ load, injected, report, outcome, reads, faultsEnd, settled, minutes: (fed - started) / 60_000 });
  const exits = service.fleet.unexpectedExits;
  if (exits.length > 0)
    console.log(`worker processes that exited on their own: ${exits.map((e) => `${e.group} (${e.code ?? e.signal})`).join(", ")}`);
  return outcome.lost === 0 && report.duplicates.length === 0 && exits.length === 0 ? 0 : 1;
}

/** One fault every FAULT_EVERY_S (±50%) until `stop()`; answers how many of each were injected. */
async function injectFaults(service: FaultService, servers: Servers, stop: () => boolean): Promise<Record<Fault, number>> {
  const injected: Record<Fault, number> = { kill: 0, provider: 0, redis: 0, "redis-restart": 0, postgres: 0 };
  const faults = servers.postgres ? PRIVATE_FAULTS : SHARED_FAULTS;
  const killer = new StageKiller({
    fleet: service.fleet,
    queues: service.queues,
    db: service.pg,
    stages: QUEUE_NAMES,
    maxJitterMs: 500,
    waitMs: 3_000,
  });
  let crash = false;
  while (!stop()) {
    await sleep(FAULT_EVERY_S * 1_000 * (0.5 + Math.random()));
    if (stop()) break;
    const fault = faults[Math.floor(Math.random() * faults.length)]!;
    try {
      if (fault === "kill") {
        const stage = QUEUE_NAMES[Math.floor(Math.random() * QUEUE_NAMES.length)]!;
        if (!(await killer.killDuring(stage, stop))) continue;
      } else if (fault === "provider") {
        scriptProviderFaults(service);
      } else if (fault === "redis") {
        if (servers.redis) servers.redis.flushAll();
        else {
          const redis = new IORedis(service.config.REDIS_URL);
          await removeQueuePrefix(redis, service.config.QUEUE_PREFIX);
          redis.disconnect();
        }
      } else if (fault === "redis-restart") {
        await servers.redis!.stop();
        await sleep(2_000 + Math.random() * 4_000);
        await servers.redis!.start();
      } else {
        // A clean shutdown and a crash (recovery at the next start) in turn.
        crash = !crash;
        await servers.postgres!.stop(crash ? "immediate" : "fast");
        await sleep(2_000 + Math.random() * 4_000);
        await servers.postgres!.start();
      }
      injected[fault] += 1;
    } catch (err) {
      console.log(`fault ${fault} could not be injected: ${(err as Error).message}`);
    }
  }
  return injected;
}

/** The next few model calls fail in the ways a provider does; the calls after them are answered as usual. */
function scriptProviderFaults(service: FaultService): void {
  service.llm.script(
    { status: 500, message: "soak: provider error" },
    { status: 429, retryAfter: "1", message: "soak: rate limited" },
    { delayMs: LLM_TIMEOUT_MS + 1_000 },
    { truncated: true, json: markerAnswer("") },
  );
}

/** A reader: /query and /profile in turn, as an agent does between turns; their latencies are kept. */
async function readLoop(service: FaultService, load: FaultLoad, stop: () => boolean, latencies: number[]): Promise<void> {
  const { contextId, apiKey } = load.credentials;
  while (!stop()) {
    const started = Date.now();
    const query = fetch(`${service.url}/api/v1/${contextId}/query`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "API-KEY": apiKey },
      body: JSON.stringify({ query: "which ledger feeds the archive", scope: ["org=faults"], limit: 5 }),
    });
    await query.then((res) => res.arrayBuffer()).catch(() => undefined);
    await fetch(`${service.url}/api/v1/${contextId}/profile?scope[org]=faults`, { headers: { "API-KEY": apiKey } })
      .then((res) => res.arrayBuffer())
      .catch(() => undefined);
    latencies.push(Date.now() - started);
    await sleep(500);
  }
}

/** Waits until no work item is queued, running or waiting and the outbox is relayed; false when SETTLE_S ran out. */
async function settle(service: FaultService): Promise<boolean> {
  const deadline = Date.now() + SETTLE_S * 1_000;
  while (Date.now() < deadline) {
    if ((await service.pending()) === 0) return true;
    await sleep(1_000);
  }
  return false;
}

interface Outcome {
  committed: number;
  failedRetryable: number;
  lost: number;
  lostIds: string[];
}

/** Each accepted input: committed exactly once, or failed with a stage dead (retryable), or lost. */
async function classify(service: FaultService, load: FaultLoad, report: EffectsReport): Promise<Outcome> {
  const missing = new Set(report.missing.map((m) => m.id));
  const { rows } = await service.pg.query<{ subject_id: string }>(
    `SELECT DISTINCT subject_id::text AS subject_id FROM work_items WHERE status = 'dead' AND subject_type IN ('turn', 'document')`,
  );
  const dead = new Set(rows.map((r) => r.subject_id));
  const lostIds = load.accepted.filter((a) => missing.has(a.id) && !dead.has(a.id)).map((a) => a.id);
  return {
    committed: load.accepted.length - missing.size,
    failedRetryable: load.accepted.filter((a) => missing.has(a.id) && dead.has(a.id)).length,
    lost: lostIds.length,
    lostIds,
  };
}

interface Summary {
  load: FaultLoad;
  injected: Record<Fault, number>;
  report: EffectsReport;
  outcome: Outcome;
  reads: number[];
  faultsEnd: number;
  settled: boolean;
  minutes: number;
}

function printSummary({ load, injected, report, outcome, reads, faultsEnd, settled, minutes }: Summary): void {
  const during = load.stats.interactive.filter((l) => l.at <= faultsEnd);
  const after = load.stats.interactive.filter((l) => l.at > faultsEnd);
  const p = (ls: TurnLatency[], q: number) =>
    percentile(
      ls.map((l) => l.ms),
      q,
    );
  console.log(
    [
      `load ${minutes.toFixed(1)} min; faults injected: ${JSON.stringify(injected)}`,
      `accepted ${load.accepted.length} ${JSON.stringify(load.stats.accepted)}; refused after retries ${load.stats.refused}; client retries ${JSON.stringify(load.stats.retries)}`,
      `committed ${outcome.committed}`,
      `failed and retryable ${outcome.failedRetryable}`,
      `lost ${outcome.lost}${outcome.lost ? ` (${outcome.lostIds.slice(0, 5).join(", ")}…)` : ""}`,
      `duplicated ${report.duplicates.length}`,
      `settled ${settled ? "yes" : `NO: still open after ${SETTLE_S} s`}`,
      `interactive turn latency during faults: p50 ${p(during, 50)} ms, p99 ${p(during, 99)} ms (${during.length} turns, ${during.filter((l) => l.status === 202).length} answered 202 pending)`,
      `interactive turn latency after faults:  p50 ${p(after, 50)} ms, p99 ${p(after, 99)} ms (${after.length} turns)`,
      `reads (/query + /profile): p50 ${percentile(reads, 50)} ms, p99 ${percentile(reads, 99)} ms`,
      describeEffects(report),
    ].join("\n"),
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(err);
    process.exit(1);
  },
);
