// Whether this API process should take traffic (/readyz): not draining, Postgres, Redis and migrations answer,
// and every queue has a live worker process. Each check is bounded in time; a failing one names its cause.
import type { Config } from "@recall/config";
import type { Db, ReadReplicas } from "@recall/db";
import { pendingMigrations } from "@recall/db/migrator";
import { describeIndex, type VectorRetriever } from "@recall/memory";
import { QUEUE_NAMES, liveWorkers, type RedisConnection } from "@recall/pipeline";

export interface ReadinessDeps {
  db: Db;
  reads?: ReadReplicas;
  redis: RedisConnection;
  config: Pick<Config, "DATABASE_URL" | "QUEUE_PREFIX">;
  vector?: VectorRetriever;
  drain: { readonly draining: boolean };
}

export interface ReadinessCheck {
  name: string;
  ok: boolean;
  error?: string;
  detail?: string;
}

export async function checkReadiness(deps: ReadinessDeps): Promise<{ ready: boolean; checks: ReadinessCheck[] }> {
  const redis = check("redis", async () => void (await deps.redis.ping()));
  const checks = await Promise.all([
    check("accepting", async () => {
      if (deps.drain.draining) throw new Error("shutting down: finishing requests in flight, taking no new ones");
    }),
    check("postgres", () => deps.db.$queryRaw`SELECT 1`),
    redis,
    check("migrations", async () => {
      const pending = await pendingMigrations(deps.config.DATABASE_URL);
      if (pending.length > 0) throw new Error(`pending: ${pending.join(", ")}`);
    }),
    // Heartbeats live in Redis: with Redis down, whether workers are alive is unknown, and says so.
    check("workers", async () => {
      if (!(await redis).ok) throw new Error("unknown: worker heartbeats are kept in Redis, which does not answer");
      return workersAlive(deps);
    }),
  ]);
  const index = await deps.vector?.index?.(deps.db);
  // Informational: the scan is a working fallback, so it never makes the service unready.
  if (index) checks.push({ name: "vector_index", ok: true, detail: describeIndex(index) });
  // Informational too: a replica that is down or behind only sends its reads to the primary.
  if (deps.reads) checks.push({ name: "replicas", ok: true, detail: describeReplicas(deps.reads) });
  const ready = checks.every((c) => c.ok);
  return { ready, checks };
}

function describeReplicas(reads: ReadReplicas): string {
  return reads
    .statuses()
    .map((r) => `${r.name} ${r.health}${r.lagMs === null ? "" : ` (lag ${r.lagMs} ms)`}${r.error ? `: ${r.error}` : ""}`)
    .join("; ");
}

/** Every queue has a worker process whose heartbeat is recent; answers who is alive. */
async function workersAlive(deps: ReadinessDeps): Promise<string> {
  const workers = await liveWorkers(deps.redis, deps.config.QUEUE_PREFIX);
  const served = new Set(workers.flatMap((w) => w.queues));
  const unserved = QUEUE_NAMES.filter((q) => !served.has(q));
  if (unserved.length > 0) {
    const alive = workers.length === 0 ? "no worker process is alive" : `${workers.length} alive, none runs them`;
    throw new Error(`no live worker for ${unserved.join(", ")} (${alive}); start workers (npm start, or apps/worker with --queues)`);
  }
  return `${workers.length} worker process${workers.length === 1 ? "" : "es"} alive: ${workers.map((w) => w.name).join(", ")}`;
}

/** A dependency that does not answer within this is not ready (a Redis Cluster client queues commands until it can). */
const CHECK_TIMEOUT_MS = 3_000;

/** A check passes when `fn` resolves; a string it resolves to is shown as the check's detail. */
async function check(name: string, fn: () => Promise<unknown>): Promise<ReadinessCheck> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  try {
    const detail = await Promise.race([fn(), timeout]);
    return typeof detail === "string" ? { name, ok: true, detail } : { name, ok: true };
  } catch (err) {
    return { name, ok: false, error: (err as Error).message };
  } finally {
    clearTimeout(timer);
  }
}
