// Runs once per `jest` run: checks Postgres and Redis answer, then builds a migrated
// template database that each test file clones (CREATE DATABASE … TEMPLATE is fast), and
// the CPU pool's tasks compiled for the threads of every worker the tests start (compiled-entry.ts).
import { Client } from "pg";
import { loadConfig } from "@recall/config";
import { migrate } from "@recall/db/migrator";
import { createRedisConnection } from "@recall/config/redis";
import { buildCpuTasksForRun } from "./compiled-entry";
import { adminUrl, newTestRunId, templateDb, withDatabase } from "./databases";

export default async function globalSetup(): Promise<void> {
  const config = loadConfig();
  await assertPostgres(config.DATABASE_URL);
  await assertRedis(config.REDIS_URL);
  const runId = newTestRunId();
  const template = templateDb(runId);
  const admin = new Client({ connectionString: adminUrl(config.DATABASE_URL) });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${template}"`);
  } finally {
    await admin.end();
  }
  await Promise.all([migrate(withDatabase(config.DATABASE_URL, template)), buildCpuTasksForRun(runId)]);
}

async function assertPostgres(url: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl(url), connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.end();
  } catch (err) {
    throw new Error(
      `tests need Postgres at ${adminUrl(url)} (set DATABASE_URL, or run them with pnpm test, which starts one if it can: infra/local-services.ts): ${(err as Error).message}`,
    );
  }
}

async function assertRedis(url: string): Promise<void> {
  const redis = createRedisConnection(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 3_000,
    retryStrategy: () => null,
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    throw new Error(
      `tests need Redis at ${url} (set REDIS_URL, or run them with pnpm test, which starts one if it can: infra/local-services.ts): ${(err as Error).message}`,
    );
  } finally {
    redis.disconnect();
  }
}
