// What one `jest` run leaves on the shared servers, and its removal: the run's template and per-file databases,
// and every key under its tests' queue prefixes. Global teardown removes the databases after a finished run;
// infra/test.ts calls removeTestRun after jest exits however it exits (Ctrl-C, SIGTERM, a crash).
import { Client } from "pg";
import { createRedisConnection } from "@recall/config/redis";
import { removeRunBuilds } from "./compiled-entry";
import { adminUrl, fileDbPrefix, templateDb } from "./databases";
import { removeMatching, testRunKeys } from "./queues";

/** Drops the run's per-file databases and its template (WITH FORCE: a killed test may still hold a connection). */
export async function dropRunDatabases(databaseUrl: string, runId: string): Promise<string[]> {
  const admin = new Client({ connectionString: adminUrl(databaseUrl) });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE starts_with(datname, $1) OR datname = $2 ORDER BY datname = $2`,
      [fileDbPrefix(runId), templateDb(runId)],
    );
    // Per-file databases first: the template cannot be dropped while a CREATE … TEMPLATE copies it.
    for (const { datname } of rows) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    return rows.map((r) => r.datname);
  } finally {
    await admin.end();
  }
}

/** Everything run `runId` made: its databases, its queue keys and its builds. */
export async function removeTestRun(databaseUrl: string, redisUrl: string, runId: string): Promise<void> {
  removeRunBuilds(runId);
  await dropRunDatabases(databaseUrl, runId);
  const redis = createRedisConnection(redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 3_000, lazyConnect: true });
  try {
    // Connected first: a cluster client knows its masters only then.
    await redis.connect();
    await removeMatching(redis, testRunKeys(runId));
  } finally {
    redis.disconnect();
  }
}
