// When to try a call again: 429 and 503 (the server refused before doing the work), after
// the wait the server asked for in Retry-After, else exponential backoff with jitter.

export interface RetryPolicy {
  /** Attempts in all, the first included (1 turns retries off). */
  maxAttempts: number;
  /** First backoff when the server gives no Retry-After; doubled each attempt. */
  baseDelayMs: number;
  /** The longest wait between attempts; a longer Retry-After ends the retries instead. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 30_000 };

export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** Milliseconds to wait before attempt `attempt + 1`, or undefined when the server asks for longer than the policy allows. */
export function retryDelay(retryAfter: string | null, attempt: number, policy: RetryPolicy, now = Date.now()): number | undefined {
  const asked = parseRetryAfter(retryAfter, now);
  if (asked !== undefined) return asked <= policy.maxDelayMs ? asked : undefined;
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  // Half fixed, half random, so clients refused together do not come back together.
  return backoff / 2 + Math.random() * (backoff / 2);
}

/** Retry-After is delay-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
