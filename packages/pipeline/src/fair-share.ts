// Background work is shared between contexts: one tenant's thousand queued jobs do not run before another
// tenant's one. BullMQ (open source) runs a queue's prioritized jobs by priority, then by arrival; a background
// job's priority is one more than the jobs its context already has waiting in that lane, so every context's n-th
// job ranks with every other context's n-th (round robin between the contexts with work), and never lower than
// its context's previous job's, so a context's own jobs stay first in, first out. The count lives in Redis beside
// the queue (+1 on add, -1 when a job first starts); count and floor expire an hour after the context's last add,
// so a count left high by a job removed before it started heals by itself.
import type { RedisConnection } from "./connection";

/** A lane's BullMQ queue: its name and prefix, on the connection its queue and workers share. */
export interface LaneRef {
  connection: RedisConnection;
  prefix: string;
  name: string;
}

/** BullMQ's highest priority number (2^21 - 1). */
const MAX_PRIORITY = 2_097_151;
const TTL_SECONDS = 3_600;

const ADD = `
local waiting = redis.call('INCR', KEYS[1])
local floor = tonumber(redis.call('GET', KEYS[2]) or '0')
local priority = math.min(math.max(waiting, floor), tonumber(ARGV[1]))
redis.call('SET', KEYS[2], priority, 'EX', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[2])
return priority`;

const START = `
local waiting = redis.call('DECR', KEYS[1])
if waiting <= 0 then redis.call('DEL', KEYS[1], KEYS[2]) end
return waiting`;

function keys(lane: LaneRef, contextId: string): [string, string] {
  // Under the queue's own prefix: the same Redis Cluster slot as the queue (the prefix holds its hash tag).
  const base = `${lane.prefix}:${lane.name}:fair:${contextId}`;
  return [`${base}:waiting`, `${base}:floor`];
}

/** The priority of a background job of this context being added now. */
export async function fairPriority(lane: LaneRef, contextId: string): Promise<number> {
  return Number(await lane.connection.eval(ADD, 2, ...keys(lane, contextId), MAX_PRIORITY, TTL_SECONDS));
}

/** A background job of this context started for the first time: it no longer waits. */
export async function fairShareStarted(lane: LaneRef, contextId: string): Promise<void> {
  await lane.connection.eval(START, 2, ...keys(lane, contextId));
}
