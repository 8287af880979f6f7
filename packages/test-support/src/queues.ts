// A fresh queue prefix per test, removed afterwards, so tests never see each other's jobs.
import { randomBytes } from "node:crypto";
import { Cluster, type Redis } from "ioredis";
import { currentTestRunId } from "./databases";

/**
 * Braced: a Redis Cluster hash tag, so each test's queues also work against a cluster. Inside a `jest` run the
 * run's id leads (`{rtest-<run>-<random>}`), so the keys of a run that was interrupted can be found and removed.
 */
export function testQueuePrefix(): string {
  const run = currentTestRunId();
  return `{rtest-${run ? `${run}-` : ""}${randomBytes(4).toString("hex")}}`;
}

/** The glob (Redis MATCH) of every key a test of run `runId` made under a test queue prefix. */
export const testRunKeys = (runId: string) => `{rtest-${runId}-*`;

/** Removes every key under `prefix:`; a cluster is scanned master by master (SCAN sees one node's keys). */
export async function removeQueuePrefix(redis: Redis | Cluster, prefix: string): Promise<void> {
  await removeMatching(redis, `${prefix}:*`);
}

/** Removes every key matching a Redis glob, on every master of a cluster. */
export async function removeMatching(redis: Redis | Cluster, pattern: string): Promise<void> {
  for (const server of redis instanceof Cluster ? redis.nodes("master") : [redis]) {
    let cursor = "0";
    do {
      const [next, keys] = await server.scan(cursor, "MATCH", pattern, "COUNT", 500);
      // One DEL per key, pipelined: a cluster node refuses a multi-key DEL across slots.
      if (keys.length > 0) {
        const pipeline = server.pipeline();
        for (const key of keys) pipeline.del(key);
        await pipeline.exec();
      }
      cursor = next;
    } while (cursor !== "0");
  }
}
