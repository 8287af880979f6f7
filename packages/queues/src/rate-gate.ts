// A sliding one-minute window of request times in Redis, shared by every process: a request
// is let through only while fewer than `perMinute` were let through in the last 60 s, so the
// provider's RPM limit holds exactly across any number of workers. The check and the record
// are one Lua script (atomic); a refused caller sleeps until the oldest entry leaves the window.
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";

const WINDOW_MS = 60_000;

const SCRIPT = `
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return tonumber(oldest[2]) + tonumber(ARGV[2]) - now + 1
`;

export class RedisRateGate {
  constructor(
    private readonly redis: Redis,
    private readonly key: string,
    readonly perMinute: number,
  ) {}

  async acquire(signal?: AbortSignal): Promise<void> {
    const member = randomUUID();
    for (;;) {
      signal?.throwIfAborted();
      // Redis's own clock, so processes on machines with skewed clocks agree on the window.
      const [seconds, micros] = await this.redis.time();
      const now = Number(seconds) * 1_000 + Math.floor(Number(micros) / 1_000);
      const waitMs = Number(await this.redis.eval(SCRIPT, 1, this.key, now, WINDOW_MS, this.perMinute, member));
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
