// Time phrases chrono reads too narrowly for facts: "last week" is a week, not the day seven
// days ago; "this weekend" is Saturday and Sunday; "for three years" (said in the present
// perfect) starts three years before the reference time.
import type { Period } from "../time/temporal-period";
import type { TemporalPhrase } from "../time/temporal-resolver";

const WEEK = /\b(this|next|last|past|the past|the last|the next|the following)\s+(week|weekend)\b/gi;
const DURATION =
  /\bfor\s+(?:about\s+|around\s+|almost\s+|nearly\s+|over\s+|the\s+(?:past|last)\s+)?(a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of|\d+)\s+(years?|months?|weeks?|days?)(?:\s+now)?\b/gi;
const NUMBERS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  "a few": 3,
  "a couple of": 2,
};
const DAY_MS = 86_400_000;

export function weekPhrases(text: string, reference: Date): Omit<TemporalPhrase, "relation">[] {
  return [...text.matchAll(WEEK)].map((match) => {
    const which = (match[1] ?? "").toLowerCase();
    const offset = /last|past/.test(which) ? -1 : /next|following/.test(which) ? 1 : 0;
    const period = weekPeriod(reference, offset, (match[2] ?? "").toLowerCase() === "weekend");
    return { text: match[0], start: match.index ?? 0, end: (match.index ?? 0) + match[0].length, period };
  });
}

/** "for three years": a span that ends now, so its start is when the state began. */
export function durationPhrases(text: string, reference: Date): TemporalPhrase[] {
  return [...text.matchAll(DURATION)].map((match) => {
    const count = NUMBERS[(match[1] ?? "").toLowerCase()] ?? Number(match[1]);
    const start = shifted(reference, -count, (match[2] ?? "").toLowerCase().replace(/s$/, ""));
    const at = match.index ?? 0;
    return { text: match[0], start: at, end: at + match[0].length, relation: "for", period: { start, end: reference } };
  });
}

/** Monday-based week `offset` weeks from the one holding `reference`; a weekend is its Saturday and Sunday. */
function weekPeriod(reference: Date, offset: number, weekend: boolean): Period {
  const midnight = Date.UTC(reference.getUTCFullYear(), reference.getUTCMonth(), reference.getUTCDate());
  const monday = midnight - ((reference.getUTCDay() + 6) % 7) * DAY_MS + offset * 7 * DAY_MS;
  const start = weekend ? monday + 5 * DAY_MS : monday;
  return { start: new Date(start), end: new Date(monday + 7 * DAY_MS) };
}

function shifted(reference: Date, count: number, unit: string): Date {
  const d = new Date(reference);
  if (unit === "year") d.setUTCFullYear(d.getUTCFullYear() + count);
  else if (unit === "month") d.setUTCMonth(d.getUTCMonth() + count);
  else d.setTime(d.getTime() + count * (unit === "week" ? 7 : 1) * DAY_MS);
  return d;
}
