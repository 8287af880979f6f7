// Every Redis client the service opens comes from here, so REDIS_URL may name one server
// (`redis://`) or a Redis Cluster (`redis-cluster://h1:p1,h2:p2,…`, an ioredis Cluster): the connections a worker and
// a producer need, from config's one factory (`@recall/config/redis`).
import { createRedisConnection, type RedisConnection } from "@recall/config/redis";

// The one factory of Redis clients is config's (the test support opens its own there too, below the pipeline).
export { createRedisConnection, type RedisConnection };

/** Workers block on Redis and must never give up on a command (BullMQ requires maxRetriesPerRequest: null). */
export function createWorkerConnection(redisUrl: string): RedisConnection {
  return createRedisConnection(redisUrl, { maxRetriesPerRequest: null });
}

/** Producers fail fast when Redis is down, so ingest can leave the work for the sweeper instead of hanging. */
export function createProducerConnection(redisUrl: string): RedisConnection {
  return createRedisConnection(redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2_000 });
}

/** What ioredis (one server or a cluster) and enqueueOrLeaveForSweeper say when Redis does not answer. */
const REDIS_UNAVAILABLE =
  /enableOfflineQueue options is false|Reached the max retries per request limit|Connection is closed|Cluster isn't ready|None of startup nodes is available|Failed to refresh slots cache|CLUSTERDOWN|Redis did not take the job|connect ECONNREFUSED/i;

/** Redis is down, restarting, or a cluster has lost its majority: a retry later will work. */
export function isRedisUnavailable(err: unknown): boolean {
  return err instanceof Error && REDIS_UNAVAILABLE.test(err.message);
}
