// Every Redis client the service opens comes from here, so REDIS_URL may name one server
// (`redis://`) or a Redis Cluster (`redis-cluster://h1:p1,h2:p2,…`, an ioredis Cluster).
import IORedis, { Cluster, type Redis, type RedisOptions } from "ioredis";
import { parseRedisUrl } from "@recall/config";

/** A client of one Redis server or of a Redis Cluster; BullMQ and every caller here take either. */
export type RedisConnection = Redis | Cluster;

/**
 * Per-connection options (timeouts, retries); for a cluster they apply to each node's connection.
 * A cluster client always queues commands until it knows the slots (BullMQ's start-up needs it),
 * so `enableOfflineQueue: false` holds for one server only; callers that must not wait bound the
 * wait themselves (enqueueOrLeaveForSweeper).
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
