import { parseRetryAfterMs } from "./retry-after";

const headers = (entries: Record<string, string>) => new Headers(entries);

describe("parseRetryAfterMs", () => {
  const now = Date.parse("2025-06-01T12:00:00Z");

  test("reads seconds", () => {
    expect(parseRetryAfterMs(headers({ "retry-after": "2" }), now)).toBe(2_000);
    expect(parseRetryAfterMs(headers({ "retry-after": "0.5" }), now)).toBe(500);
  });

  test("reads an HTTP date relative to now", () => {
    expect(parseRetryAfterMs(headers({ "retry-after": "Sun, 01 Jun 2025 12:00:30 GMT" }), now)).toBe(30_000);
  });

  test("a date in the past means no wait was asked for", () => {
    expect(parseRetryAfterMs(headers({ "retry-after": "Sun, 01 Jun 2025 11:00:00 GMT" }), now)).toBeUndefined();
  });

  test("retry-after-ms wins over retry-after", () => {
    expect(parseRetryAfterMs(headers({ "retry-after-ms": "1500", "retry-after": "9" }), now)).toBe(1_500);
  });

  test("absent or garbage headers give undefined", () => {
    expect(parseRetryAfterMs(headers({}), now)).toBeUndefined();
    expect(parseRetryAfterMs(headers({ "retry-after": "soon" }), now)).toBeUndefined();
    expect(parseRetryAfterMs(undefined, now)).toBeUndefined();
  });

  test("caps absurd waits at an hour", () => {
    expect(parseRetryAfterMs(headers({ "retry-after": "86400" }), now)).toBe(3_600_000);
  });
});
