// When a failed delivery is tried again: the base delay doubling with each attempt, up to a cap,
// with ±20% jitter so the retries of many deliveries to one recovering endpoint spread out.
export interface WebhookRetry {
  baseMs: number;
  maxMs: number;
  /** How long a delivery is retried from its first attempt before it is given up. */
  forMs: number;
}

/** The delay after the `attempt`-th failed attempt (1-based). */
export function webhookBackoffMs(attempt: number, retry: Pick<WebhookRetry, "baseMs" | "maxMs">, random = Math.random): number {
  const doublings = Math.min(Math.max(attempt - 1, 0), 40);
  const delay = Math.min(retry.baseMs * 2 ** doublings, retry.maxMs);
  return Math.round(delay * (0.8 + 0.4 * random()));
}
