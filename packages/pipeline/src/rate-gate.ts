// A sliding one-minute window of request times in Redis, shared by every process: a request
// is let through only while fewer than `perMinute` were let through in the window, so the
// provider's RPM limit holds across any number of workers. The clock read, the check and the
// record are one Lua script (atomic, Redis's own clock: a process stalled between reading the
// time and recording it would otherwise record a time already past). The window is held
// WINDOW_MARGIN_MS longer than a minute, for the time a let-through request takes to reach the
// provider; a refused caller sleeps until the oldest entry leaves the window.
import { randomUUID } from "node:crypto";
import type { RedisConnection } from "./connection";

const WINDOW_MS = 60_000;
const WINDOW_MARGIN_MS = 1_000;

const SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return tonumber(oldest[2]) + window - now + 1
`;

export class RedisRateGate {
  constructor(
    private readonly redis: RedisConnection,
    private readonly key: string,
    readonly perMinute: number,
  ) {}

  async acquire(signal?: AbortSignal): Promise<void> {
    const member = randomUUID();
    for (;;) {
      signal?.throwIfAborted();
      const waitMs = Number(await this.redis.eval(SCRIPT, 1, this.key, WINDOW_MS + WINDOW_MARGIN_MS, this.perMinute, member));
      if (waitMs <= 0) return;
      await sleep(Math.min(waitMs, 1_000), signal);
    }
  }
}

/** Waits ms, or until the signal aborts; the abort listener goes when the wait ends (a long wait loops here many times). */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
