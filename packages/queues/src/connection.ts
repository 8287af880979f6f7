import IORedis, { type Redis } from "ioredis";

/** Workers block on Redis and must never give up on a command (BullMQ requires maxRetriesPerRequest: null). */
export function createWorkerConnection(redisUrl: string): Redis {
  return new IORedis(redisUrl, { maxRetriesPerRequest: null });
}

/** Producers fail fast when Redis is down, so the API can answer 503 instead of hanging. */
export function createProducerConnection(redisUrl: string): Redis {
  return new IORedis(redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2_000 });
}
