// A fresh queue prefix per test, removed afterwards, so tests never see each other's jobs.
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";

export function testQueuePrefix(): string {
  return `{rtest-${randomBytes(4).toString("hex")}}`;
}

export async function removeQueuePrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 500);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== "0");
}
