// The RPM gate on real Redis: two gates (two processes) share one window; the limit+1st
// request within the minute is held back.
import { loadConfig } from "@recall/config";
import { testQueuePrefix } from "@recall/test-support";
import { createRedisConnection } from "./connection";
import { RedisRateGate } from "./rate-gate";

test("requests beyond the per-minute limit wait, across every gate on the same key", async () => {
  const redis = createRedisConnection(loadConfig().REDIS_URL);
  const key = `${testQueuePrefix()}:model-rpm`;
  try {
    const [a, b] = [new RedisRateGate(redis, key, 3), new RedisRateGate(redis, key, 3)];
    await a.acquire();
    await b.acquire();
    await a.acquire();
    const held = AbortSignal.timeout(1_500);
    await expect(b.acquire(held)).rejects.toThrow();
    expect(await redis.zcard(key)).toBe(3);
  } finally {
    await redis.del(key);
    redis.disconnect();
  }
});
