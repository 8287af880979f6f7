import { DEFAULT_RETRY, RetryBudget, parseRetryAfter, retryDelay } from "./retry-policy";

const now = Date.parse("2026-01-01T00:00:00Z");

test("Retry-After is read as seconds or as an HTTP date", () => {
  expect(parseRetryAfter("2", now)).toBe(2_000);
  expect(parseRetryAfter(" 0 ", now)).toBe(0);
  expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:05 GMT", now)).toBe(5_000);
  expect(parseRetryAfter("Wed, 31 Dec 2025 23:59:00 GMT", now)).toBe(0);
  expect(parseRetryAfter("soon", now)).toBeUndefined();
  expect(parseRetryAfter(null, now)).toBeUndefined();
});

test("the server's wait is honoured up to the policy's longest; a longer one ends the retries", () => {
  expect(retryDelay("3", 1, DEFAULT_RETRY, now)).toBe(3_000);
  expect(retryDelay("31", 1, DEFAULT_RETRY, now)).toBeUndefined();
});

test("without Retry-After the backoff doubles, with jitter in its upper half, capped", () => {
  const policy = { ...DEFAULT_RETRY, baseDelayMs: 100, maxBackoffMs: 1_000 };
  for (const [attempt, full] of [
    [1, 100],
    [2, 200],
    [3, 400],
    [5, 1_000],
  ] as const) {
    const delay = retryDelay(null, attempt, policy, now)!;
    expect(delay).toBeGreaterThanOrEqual(full / 2);
    expect(delay).toBeLessThanOrEqual(full);
  }
});

test("the default waits add up to nearly 30 s, far past an API restart, whatever the jitter, and no wait is over 2 s", () => {
  for (let run = 0; run < 50; run++) {
    const budget = new RetryBudget(DEFAULT_RETRY);
    const waits: number[] = [];
    for (let attempt = 1; ; attempt++) {
      const wait = budget.next(null, attempt);
      if (wait === undefined) break;
      waits.push(wait);
    }
    expect(Math.max(...waits)).toBeLessThanOrEqual(2_000);
    const total = waits.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(DEFAULT_RETRY.budgetMs - 2_000);
    expect(total).toBeLessThanOrEqual(DEFAULT_RETRY.budgetMs);
  }
});

test("a Retry-After that would go past what is left of the budget ends the retries; so does maxAttempts", () => {
  const budget = new RetryBudget({ ...DEFAULT_RETRY, budgetMs: 5_000 });
  expect(budget.next("3", 1)).toBe(3_000);
  expect(budget.next("3", 2)).toBeUndefined();
  expect(budget.next("2", 2)).toBe(2_000);
  expect(budget.next("0", 3)).toBe(0);
  expect(new RetryBudget({ ...DEFAULT_RETRY, maxAttempts: 2 }).next("0", 2)).toBeUndefined();
});
