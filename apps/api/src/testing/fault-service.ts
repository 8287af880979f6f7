// A Recall for fault runs (the crash test, the soak): the API in this process on a free port, every
// stage's workers as child processes (one process per queue, so each stage can be killed on its own),
// and the scripted model server answering markers (marker-model.ts) after a delay, on a database and
// queue prefix of its own.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import IORedis from "ioredis";
import { Pool } from "pg";
import { configWith, type Config } from "@recall/config";
import {
  QUEUE_NAMES,
  createProducerConnection,
  createQueues,
  isQueueName,
  jobIdFor,
  type QueueName,
  type QueueSet,
} from "@recall/pipeline";
import { compiledEntry, removeQueuePrefix, startFakeLlmServer, type FakeLlmServer } from "@recall/test-support";
import { markerModel } from "@recall/worker/testing";
import { WorkerFleet } from "@recall/worker/testing";
import { bootstrapApi } from "../bootstrap";
import { createServerApp } from "../server-app";
import { listen, type Listening } from "./listen";

export const FAULT_ADMIN_KEY = "fault-admin-key";
const WORKER_ENTRY = "apps/worker/src/main.ts";

export interface FaultServiceOptions {
  databaseUrl: string;
  redisUrl: string;
  queuePrefix: string;
  /** Settings for the API and every worker process, over the fault defaults below. */
  overrides?: Partial<Record<keyof Config, string>>;
  /** How long the model takes to answer (default 150 ms). */
  modelDelayMs?: number;
  /** Worker processes, each running every queue (default 3). */
  processes?: number;
  /** Where each worker process's log goes (default: a fresh directory under the OS temp dir). */
  logDir?: string;
  /** Workers run as compiled JavaScript (compiledEntry) instead of under tsx: cheaper for a test that restarts many. */
  compiledWorkers?: boolean;
}

export interface FaultService {
  url: string;
  config: Config;
  /** The environment the worker processes run with (a test may start more with changes to it). */
  env: Record<string, string>;
  llm: FakeLlmServer;
  fleet: WorkerFleet;
  /** Connections of the run's own, for polling work items and the audit (a pool: it outlives a Postgres restart). */
  pg: Pool;
  queues: QueueSet;
  logDir: string;
  api: ReturnType<typeof bootstrapApi>;
  /** The state of a work item's BullMQ job (for the audit). */
  jobState(queue: string, workItemId: string): Promise<string>;
  /** Work items not yet in a final state (succeeded, dead, cancelled), and outbox rows not yet relayed. */
  pending(): Promise<number>;
  close(): Promise<void>;
}

/**
 * Short leases and sweeps so work a killed worker abandoned comes back within seconds, a wall budget far
 * above what any stage needs on a starved machine (a stage past it ends dead), and a model configured.
 */
const FAULT_DEFAULTS: Partial<Record<keyof Config, string>> = {
  NODE_ENV: "test",
  LOG_LEVEL: "warn",
  WORKER_METRICS_PORT: "0",
  RECALL_FAST_MODEL: "openai:gpt-fake",
  OPENAI_API_KEY: "fault-test-key",
  LLM_TIMEOUT_MS: "30000",
  RECALL_FAULT_DELAY_MS: "150",
  WORKER_LOCK_DURATION_MS: "4000",
  RECALL_SWEEP_INTERVAL_MS: "2000",
  RECALL_SWEEP_AFTER_MS: "5000",
  RECALL_MAX_WALL_MS: "30000",
  RECALL_RUNNING_LEASE_SECONDS: "31",
  OUTBOX_POLL_MS: "500",
  RECALL_WINDOW_LINGER_MS: "200",
  // A turn answers 202 (pending) past this; its client moves on, so the load keeps flowing while workers restart.
  TURN_TIMEOUT_MS: "10000",
  SHUTDOWN_TIMEOUT_MS: "5000",
};

/** Worker processes, each running every queue (as `pnpm start` does); the killer finds the one holding a job. */
export function workerGroups(processes: number): Record<string, readonly QueueName[]> {
  return Object.fromEntries(Array.from({ length: processes }, (_, i) => [`w${i}`, QUEUE_NAMES]));
}

export async function startFaultService(options: FaultServiceOptions): Promise<FaultService> {
  const llm = await startFakeLlmServer();
  llm.respondWith(markerModel({ delayMs: options.modelDelayMs ?? 150 }));
  const settings: Partial<Record<keyof Config, string>> = {
    ...FAULT_DEFAULTS,
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: options.redisUrl,
    QUEUE_PREFIX: options.queuePrefix,
    ADMIN_API_KEY: FAULT_ADMIN_KEY,
    OPENAI_BASE_URL: llm.openaiBaseUrl,
    ...options.overrides,
  };
  const config = configWith(settings);
  const logDir = options.logDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "recall-faults-"));
  const compiled = options.compiledWorkers ? await compiledEntry(WORKER_ENTRY) : undefined;
  const fleet = new WorkerFleet({
    env: settings as Record<string, string>,
    groups: workerGroups(options.processes ?? 3),
    logDir,
    compiled,
  });
  fleet.startAll();
  const api = bootstrapApi(config);
  const server: Listening = await listen(createServerApp(api));
  const pg = new Pool({ connectionString: config.DATABASE_URL, max: 2 });
  // An idle connection cut by a Postgres restart (the soak's fault) is dropped; the next query opens a new one.
  pg.on("error", () => undefined);
  const redis = createProducerConnection(config.REDIS_URL);
  const queues = createQueues({ connection: redis, prefix: config.QUEUE_PREFIX });
  const service: FaultService = {
    url: server.url,
    config,
    env: settings as Record<string, string>,
    llm,
    fleet,
    pg,
    queues,
    logDir,
    api,
    jobState: async (queue, id) => {
      if (!isQueueName(queue)) return "unknown";
      const states = await Promise.all([queues[queue], queues.background[queue]].map((lane) => lane.getJobState(jobIdFor(id))));
      return states.find((state) => state !== "unknown") ?? "unknown";
    },
    async pending() {
      const { rows } = await pg.query<{ n: number }>(
        `SELECT (SELECT count(*) FROM work_items WHERE status NOT IN ('succeeded', 'dead', 'cancelled'))
              + (SELECT count(*) FROM outbox_events WHERE processed_at IS NULL) AS n`,
      );
      return Number(rows[0]?.n ?? 0);
    },
    async close() {
      await fleet.stopAll();
      await server.close();
      await api.close();
      await queues.close();
      redis.disconnect();
      await pg.end();
      await llm.close();
      const cleanup = new IORedis(config.REDIS_URL);
      await removeQueuePrefix(cleanup, config.QUEUE_PREFIX);
      cleanup.disconnect();
    },
  };
  // Workers that never came up must not outlive the run (they would keep polling a dropped database).
  await fleet.ready(queues).catch(async (err: Error) => {
    await service.close();
    throw err;
  });
  return service;
}
