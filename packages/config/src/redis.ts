// The Redis client REDIS_URL names: one server (`redis://`) or a Redis Cluster (`redis-cluster://h1:p1,h2:p2,…`, an
// ioredis Cluster). A subpath of its own (`@recall/config/redis`), so a process that never opens Redis does not load
// ioredis; the pipeline's connections and the test support's cleanup both open theirs here.
import IORedis, { Cluster, type Redis, type RedisOptions } from "ioredis";
import { parseRedisUrl } from "./index";

/** A client of one Redis server or of a Redis Cluster; BullMQ and every caller here take either. */
export type RedisConnection = Redis | Cluster;

/**
 * Per-connection options (timeouts, retries); for a cluster they apply to each node's connection.
 * A cluster client always queues commands until it knows the slots (BullMQ's start-up needs it),
 * so `enableOfflineQueue: false` holds for one server only; callers that must not wait bound the
 * wait themselves (the pipeline's enqueueOrLeaveForSweeper).
 */
export function createRedisConnection(redisUrl: string, options: RedisOptions = {}): RedisConnection {
  const target = parseRedisUrl(redisUrl);
  if (!target.mode) throw new Error(`REDIS_URL ${target.error}`);
  if (target.mode === "single") return new IORedis(target.url, options);
  const { enableOfflineQueue: _queuedUntilReady, lazyConnect, ...nodeOptions } = options;
  return new Cluster(target.nodes, {
    redisOptions: { ...nodeOptions, username: target.username, password: target.password },
    ...(lazyConnect === undefined ? {} : { lazyConnect }),
  });
}
