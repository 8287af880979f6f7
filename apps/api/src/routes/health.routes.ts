import { z } from "zod";
import { pendingMigrations } from "@recall/db/migrator";
import { describeIndex } from "@recall/memory";
import { QUEUE_NAMES, liveWorkers } from "@recall/queues";
import { registry } from "@recall/telemetry";
import type { ApiDeps } from "../deps";
import { defineRoute, type RouteDefinition } from "../http/route-definition";

const Check = z.object({ name: z.string(), ok: z.boolean(), error: z.string().optional(), detail: z.string().optional() });
const Readiness = z.object({ status: z.enum(["ready", "not_ready"]), checks: z.array(Check) });

export function healthRoutes(deps: ApiDeps): RouteDefinition[] {
  return [liveness(), readiness(deps), metrics()];
}

function liveness(): RouteDefinition {
  return defineRoute({
    method: "get",
    path: "/healthz",
    summary: "The process is up",
    description:
      "Liveness: answers 200 while the process runs, without touching Postgres or Redis. Use /readyz to decide whether to send traffic.",
    tags: ["health"],
    responses: { 200: { description: "Up", schema: z.object({ status: z.literal("ok") }) } },
    handle: async () => ({ status: 200, body: { status: "ok" } }),
  });
}

function readiness(deps: ApiDeps): RouteDefinition {
  return defineRoute({
    method: "get",
    path: "/readyz",
    summary: "Taking requests (not shutting down), and Postgres, Redis and migrations are ready",
    description:
      "Readiness: 200 when every check passes, 503 with the failing checks named otherwise (also while the process drains on shutdown). The workers check says whether every queue has a live worker process.",
    tags: ["health"],
    responses: { 200: { description: "Ready", schema: Readiness }, 503: { description: "Not ready; see checks", schema: Readiness } },
    handle: async () => {
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
      const ready = checks.every((c) => c.ok);
      return { status: ready ? 200 : 503, body: { status: ready ? "ready" : "not_ready", checks } };
    },
  });
}

function metrics(): RouteDefinition {
  return defineRoute({
    method: "get",
    path: "/metrics",
    summary: "Prometheus metrics",
    description:
      "Request durations by route template, queue depths, job outcomes and stage durations, model calls, tokens and cost, in the Prometheus text exposition format. Unauthenticated: expose it to your scraper only.",
    tags: ["health"],
    responses: { 200: { description: "Prometheus text exposition format", schema: z.string(), contentType: "text/plain" } },
    handle: async () => ({ status: 200, body: await registry.metrics(), contentType: registry.contentType }),
  });
}

/** Every queue has a worker process whose heartbeat is recent; answers who is alive. */
async function workersAlive(deps: ApiDeps): Promise<string> {
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
async function check(name: string, fn: () => Promise<unknown>): Promise<z.infer<typeof Check>> {
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
