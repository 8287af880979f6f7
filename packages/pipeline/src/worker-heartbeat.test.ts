// Worker heartbeats on real Redis: a beating process is live with its queues, one whose last beat
// is older than HEARTBEAT_STALE_MS is not, and a stopped process removes itself at once.
import { loadConfig } from "@recall/config";
import { testQueuePrefix } from "@recall/test-support";
import { createRedisConnection } from "./connection";
import { HEARTBEAT_STALE_MS, liveWorkers, startHeartbeat } from "./worker-heartbeat";

test("live workers are those with a recent beat; stopping removes the entry", async () => {
  const redis = createRedisConnection(loadConfig().REDIS_URL);
  const prefix = testQueuePrefix();
  try {
    const a = startHeartbeat(redis, prefix, { name: "host:1", queues: ["extract_assertions"] });
    const b = startHeartbeat(redis, prefix, { name: "host:2", queues: ["commit_artifacts", "truth_maintenance"] });
    // The first beat is written at start; wait until both are in.
    for (let i = 0; i < 50 && (await liveWorkers(redis, prefix)).length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    const live = await liveWorkers(redis, prefix);
    expect(live.map((w) => [w.name, w.queues]).sort()).toEqual([
      ["host:1", ["extract_assertions"]],
      ["host:2", ["commit_artifacts", "truth_maintenance"]],
    ]);
    // Seen from a moment past the stale bound, neither is alive any more.
    expect(await liveWorkers(redis, prefix, Date.now() + HEARTBEAT_STALE_MS + 1_000)).toEqual([]);
    await a.stop();
    expect((await liveWorkers(redis, prefix)).map((w) => w.name)).toEqual(["host:2"]);
    await b.stop();
    expect(await liveWorkers(redis, prefix)).toEqual([]);
  } finally {
    await redis.del(`${prefix}:worker-heartbeats`);
    redis.disconnect();
  }
});
