// Worker processes say they are alive: every few seconds each writes its name, its queues and the
// time into one sorted set under the queue prefix (one key, so one Redis Cluster slot with the
// prefix's hash tag). /readyz reads it to tell which queues have a live worker.
import type { RedisConnection } from "./connection";
import type { QueueName } from "./registry";

/** A beat older than this means the process is gone (killed, hung, cut off from Redis). */
export const HEARTBEAT_STALE_MS = 15_000;
const BEAT_EVERY_MS = 5_000;
/** Entries of processes gone this long are removed by any reader or writer. */
const FORGET_AFTER_MS = 10 * 60_000;

export interface LiveWorker {
  name: string;
  queues: QueueName[];
  /** When its last beat was written (ms since the epoch). */
  beatAt: number;
}

function heartbeatKey(prefix: string): string {
  return `${prefix}:worker-heartbeats`;
}

/** Beats now and every few seconds until stopped; stop() removes this process's entry. */
export function startHeartbeat(redis: RedisConnection, prefix: string, worker: Omit<LiveWorker, "beatAt">): { stop(): Promise<void> } {
  const key = heartbeatKey(prefix);
  const member = JSON.stringify({ name: worker.name, queues: worker.queues });
  // A missed beat (Redis restarting) is only a late one: the next beat writes it again.
  const beat = () => void redis.zadd(key, Date.now(), member).catch(() => undefined);
  beat();
  const timer = setInterval(beat, BEAT_EVERY_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await redis.zrem(key, member).catch(() => undefined);
    },
  };
}

/** Workers whose last beat is recent, newest first. */
export async function liveWorkers(redis: RedisConnection, prefix: string, now = Date.now()): Promise<LiveWorker[]> {
  const key = heartbeatKey(prefix);
  await redis.zremrangebyscore(key, "-inf", now - FORGET_AFTER_MS);
  const entries = await redis.zrangebyscore(key, now - HEARTBEAT_STALE_MS, "+inf", "WITHSCORES");
  const workers: LiveWorker[] = [];
  for (let i = 0; i + 1 < entries.length; i += 2) {
    const { name, queues } = JSON.parse(entries[i]!) as Omit<LiveWorker, "beatAt">;
    workers.push({ name, queues, beatAt: Number(entries[i + 1]) });
  }
  return workers.reverse();
}
