// A whole Recall for the benchmark: its own migrated database, its own queue prefix,
// the real workers and the real HTTP app listening on a free port.
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { Client } from "pg";
import { configWith, loadConfig, type Config } from "@recall/config";
import { migrate } from "@recall/db/migrator";
import { QUEUE_NAMES, createRedisConnection } from "@recall/pipeline";
import { adminUrl, removeQueuePrefix, withDatabase } from "@recall/test-support";
import { createApp } from "../../apps/api/src/app";
import { bootstrapApi } from "../../apps/api/src/bootstrap";
import { bootstrapWorker, type WorkerProcess } from "../../apps/worker/src/bootstrap";
import { startWorkers, type WorkerRuntime } from "../../apps/worker/src/worker-runtime";

export const BENCH_ADMIN_KEY = `bench-${randomBytes(8).toString("hex")}`;

export interface BenchService {
  baseUrl: string;
  /** The same API with no vector retriever: /query answers from full text alone (equals baseUrl when none is configured). */
  fullTextUrl: string;
  config: Config;
  /** Stops the workers, so measurements see no background work. */
  stopWorkers(): Promise<void>;
  close(): Promise<void>;
}

export interface ServiceOptions {
  /** A database kept between runs (created when missing, migrated, never dropped); default: a fresh one, dropped on close. */
  keepDatabase?: string;
}

/** `overrides` adds settings, e.g. a model provider for the economy benchmark. */
export async function startService(
  overrides: Partial<Record<keyof Config, string>> = {},
  options: ServiceOptions = {},
): Promise<BenchService> {
  const base = loadConfig();
  const database = options.keepDatabase ?? `recall_bench_${randomBytes(4).toString("hex")}`;
  if (!options.keepDatabase || !(await databaseExists(base.DATABASE_URL, database)))
    await adminQuery(base.DATABASE_URL, `CREATE DATABASE "${database}"`);
  const config = configWith({
    DATABASE_URL: withDatabase(base.DATABASE_URL, database),
    REDIS_URL: base.REDIS_URL,
    // RECALL_DB_ROLE=none pnpm bench: the same run without row-level security (its cost, docs/performance.md).
    RECALL_DB_ROLE: base.RECALL_DB_ROLE,
    QUEUE_PREFIX: `{rbench-${randomBytes(4).toString("hex")}}`,
    ADMIN_API_KEY: BENCH_ADMIN_KEY,
    LOG_LEVEL: "silent",
    OUTBOX_POLL_MS: "20",
    NODE_ENV: "production",
    ...overrides,
  });
  await migrate(config.DATABASE_URL);
  const worker = await bootstrapWorker(config);
  let runtime: WorkerRuntime | undefined = startWorkers(worker.deps, worker.connection, QUEUE_NAMES);
  const api = bootstrapApi(config);
  const server = await listen(createApp(api));
  const fullText = api.vector ? await listen(createApp({ ...api, vector: undefined })) : server;
  const stopWorkers = async () => {
    await runtime?.close();
    runtime = undefined;
  };
  return {
    baseUrl: urlOf(server),
    fullTextUrl: urlOf(fullText),
    config,
    stopWorkers,
    async close() {
      await stopWorkers();
      if (fullText !== server) await new Promise((resolve) => fullText.close(resolve));
      await new Promise((resolve) => server.close(resolve));
      await closeAll(worker, api, config);
      if (!options.keepDatabase) await adminQuery(base.DATABASE_URL, `DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    },
  };
}

const urlOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

function listen(app: ReturnType<typeof createApp>): Promise<Server> {
  return new Promise((resolve) => {
    const server = app.listen(0, "127.0.0.1", () => resolve(server));
  });
}

async function closeAll(worker: WorkerProcess, api: ReturnType<typeof bootstrapApi>, config: Config): Promise<void> {
  await worker.close();
  await api.close();
  const redis = createRedisConnection(config.REDIS_URL);
  await removeQueuePrefix(redis, config.QUEUE_PREFIX);
  redis.disconnect();
}

async function databaseExists(url: string, database: string): Promise<boolean> {
  return (await adminQuery(url, "SELECT 1 FROM pg_database WHERE datname = $1", [database])) > 0;
}

async function adminQuery(url: string, sql: string, values: unknown[] = []): Promise<number> {
  const admin = new Client({ connectionString: adminUrl(url) });
  await admin.connect();
  try {
    return (await admin.query(sql, values)).rowCount ?? 0;
  } finally {
    await admin.end();
  }
}
