// A whole Recall for one test file: its own database (cloned from the migrated
// template), its own queue prefix, the real workers and the real HTTP app.
import type { Express } from "express";
import type { LoggerOptions } from "@recall/telemetry";
import { Client } from "pg";
import { createDb } from "@recall/db";
import { migrate } from "@recall/db/migrator";
import { configWith, loadConfig, type Config } from "@recall/config";
import {
  compiledCpuTasks,
  createTestDatabase,
  removeQueuePrefix,
  testQueuePrefix,
  type PrivatePostgres,
  type TestDatabase,
} from "@recall/test-support";
import { QUEUE_NAMES, createRedisConnection, type QueueName } from "@recall/pipeline";
import { bootstrapWorker, type WorkerProcess } from "@recall/worker/bootstrap";
import { startWorkers, type WorkerRuntime } from "@recall/worker/runtime";
import { createApp } from "../app";
import { bootstrapApi } from "../bootstrap";

export const ADMIN_KEY = "test-admin-key";

export interface Harness {
  app: Express;
  config: Config;
  api: ReturnType<typeof bootstrapApi>;
  worker: WorkerProcess;
  runtime: WorkerRuntime;
  close(): Promise<void>;
}

export async function startHarness(
  overrides: Partial<Record<keyof Config, string>> = {},
  queues: readonly QueueName[] = QUEUE_NAMES,
  /** Where the API's and workers' log lines go (a test that reads them); nowhere unless LOG_LEVEL is set. */
  logDestination?: LoggerOptions["destination"],
): Promise<Harness> {
  // A DATABASE_URL override is a database the test made itself (on a private server): kept as it is.
  const database: TestDatabase | undefined = overrides.DATABASE_URL ? undefined : await createTestDatabase();
  const base = loadConfig();
  const config = configWith({
    DATABASE_URL: database?.url ?? "",
    REDIS_URL: base.REDIS_URL,
    QUEUE_PREFIX: testQueuePrefix(),
    ADMIN_API_KEY: ADMIN_KEY,
    LOG_LEVEL: "silent",
    OUTBOX_POLL_MS: "50",
    NODE_ENV: "test",
    // Test files run beside each other, not beside this service's interactive work: a niced background
    // thread would only be starved by the other files' processes.
    RECALL_CPU_BACKGROUND_NICE: "0",
    ...overrides,
  });
  const worker = await bootstrapWorker(config, { destination: logDestination, cpuTasksModule: compiledCpuTasks() });
  // As main.ts does: the CPU pool's threads load the rules and parsers now, not inside a test's first wait.
  if (queues.length > 0) await worker.warm();
  const runtime = startWorkers(worker.deps, worker.connection, queues);
  const api = bootstrapApi(config, { destination: logDestination });
  // The service's own pool shows a query outside a context nothing (row-level security); a test's reads,
  // fixtures and injected triggers see every context, as the tables' owner, through a pool of their own.
  const testDb = createDb({ databaseUrl: config.DATABASE_URL, poolMax: 4, serviceRole: null, unscoped: "bypass" });
  return {
    app: createApp(api),
    config,
    api: { ...api, db: testDb },
    worker,
    runtime,
    async close() {
      await runtime.close();
      await worker.close();
      await api.close();
      await testDb.$disconnect();
      const redis = createRedisConnection(config.REDIS_URL);
      await removeQueuePrefix(redis, config.QUEUE_PREFIX);
      redis.disconnect();
      await database?.drop();
    },
  };
}

/** A migrated `recall` database on a private server of the test's own; answers its URL. */
export async function migratedDatabaseOn(server: PrivatePostgres): Promise<string> {
  const admin = new Client({ connectionString: server.url() });
  await admin.connect();
  try {
    await admin.query("CREATE DATABASE recall");
  } finally {
    await admin.end();
  }
  await migrate(server.url("recall"));
  return server.url("recall");
}
