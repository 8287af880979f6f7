// A fresh queue prefix per test, removed afterwards, so tests never see each other's jobs.
import { randomBytes } from "node:crypto";
import { Cluster, type Redis } from "ioredis";

/** Braced: a Redis Cluster hash tag, so each test's queues also work against a cluster. */
export function testQueuePrefix(): string {
  return `{rtest-${randomBytes(4).toString("hex")}}`;
}

/** Removes every key under `prefix:`; a cluster is scanned master by master (SCAN sees one node's keys). */
export async function removeQueuePrefix(redis: Redis | Cluster, prefix: string): Promise<void> {
  for (const server of redis instanceof Cluster ? redis.nodes("master") : [redis]) {
    let cursor = "0";
    do {
      const [next, keys] = await server.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 500);
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
