// Longest wait we pass on: a provider asking for more is better handled by the queue's
// own backoff than by parking a job for hours.
const MAX_RETRY_AFTER_MS = 60 * 60 * 1000;

interface HeaderSource {
  get(name: string): string | null;
}

/**
 * How long the provider asked us to wait, from `retry-after-ms` (OpenAI, Anthropic) or
 * `retry-after` (seconds or an HTTP date). Undefined when absent, unparseable or in the past.
 */
export function parseRetryAfterMs(headers: HeaderSource | undefined, now: number = Date.now()): number | undefined {
  const ms = Number.parseFloat(headers?.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms) && ms >= 0) return clamp(ms);
  const value = headers?.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return clamp(Number.parseFloat(value) * 1000);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return date > now ? clamp(date - now) : undefined;
}

function clamp(ms: number): number {
  return Math.min(Math.round(ms), MAX_RETRY_AFTER_MS);
}
