import { DEFAULT_RETRY, parseRetryAfter, retryDelay } from "./retry-policy";

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
  const policy = { maxAttempts: 10, baseDelayMs: 100, maxDelayMs: 1_000 };
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
