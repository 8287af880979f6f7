// When to try a call again: 429 and 503 (the server refused before doing the work), after
// the wait the server asked for in Retry-After, else exponential backoff with jitter; all the
// waits of one call together stay within a budget long enough to outlast an API restart.

export interface RetryPolicy {
  /** Attempts in all, the first included (1 turns retries off). */
  maxAttempts: number;
  /** First backoff when the server gives no Retry-After; doubled each attempt. */
  baseDelayMs: number;
  /** The longest backoff: a server coming back is noticed within this long. */
  maxBackoffMs: number;
  /** The longest wait between attempts; a longer Retry-After ends the retries instead. */
  maxDelayMs: number;
  /** All the waits of one call together: a wait that would go past it ends the retries instead. */
  budgetMs: number;
}

/**
 * Up to 30 s of waiting in all, as long as the longest Retry-After honoured: a restart of the API (3–10 s under a
 * supervisor; 10–15 s for `tsx` on a loaded 2-core machine) is outlasted, and the backoff is capped at 2 s so the
 * call goes through soon after the server is back.
 */
export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 40, baseDelayMs: 250, maxBackoffMs: 2_000, maxDelayMs: 30_000, budgetMs: 30_000 };

export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** Milliseconds to wait before attempt `attempt + 1`, or undefined when the server asks for longer than the policy allows. */
export function retryDelay(retryAfter: string | null, attempt: number, policy: RetryPolicy, now = Date.now()): number | undefined {
  const asked = parseRetryAfter(retryAfter, now);
  if (asked !== undefined) return asked <= policy.maxDelayMs ? asked : undefined;
  const backoff = Math.min(policy.maxBackoffMs, policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  // Half fixed, half random, so clients refused together do not come back together.
  return backoff / 2 + Math.random() * (backoff / 2);
}

/** The waits of one call: the next one is allowed while attempts and budget last. */
export class RetryBudget {
  private waitedMs = 0;

  constructor(private readonly policy: RetryPolicy) {}

  /** The wait before attempt `attempt + 1`, counted against the budget; undefined: stop here. */
  next(retryAfter: string | null, attempt: number): number | undefined {
    if (attempt >= this.policy.maxAttempts) return undefined;
    const delay = retryDelay(retryAfter, attempt, this.policy);
    if (delay === undefined || this.waitedMs + delay > this.policy.budgetMs) return undefined;
    this.waitedMs += delay;
    return delay;
  }
}

/** Retry-After is delay-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
