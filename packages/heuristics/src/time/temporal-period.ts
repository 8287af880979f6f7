// Calendar periods in UTC: the unit a temporal phrase names ("January" is a month,
// "last year" a year), so "since" can take its start and "through" its end.
import type { ParsedComponents } from "chrono-node";

export interface Period {
  start: Date;
  /** Exclusive end. */
  end: Date;
}

export function periodOf(components: ParsedComponents): Period | undefined {
  const at = components.date();
  const y = components.get("year") ?? at.getUTCFullYear();
  const m = (components.get("month") ?? 1) - 1;
  const d = components.get("day") ?? 1;
  if (components.isCertain("hour")) return { start: at, end: at };
  if (components.isCertain("day") || components.isCertain("weekday")) return utcPeriod(y, m, d, "day");
  if (components.isCertain("month")) return utcPeriod(y, m, 1, "month");
  if (components.isCertain("year")) return utcPeriod(y, 0, 1, "year");
  return undefined;
}

export function yearPeriod(year: number): Period {
  return utcPeriod(year, 0, 1, "year");
}

/** Quarter `offset` quarters away from the one containing `reference` (0 = this quarter). */
export function quarterPeriod(reference: Date, offset: number): Period {
  const index = Math.floor(reference.getUTCMonth() / 3) + offset;
  return {
    start: new Date(Date.UTC(reference.getUTCFullYear(), index * 3, 1)),
    end: new Date(Date.UTC(reference.getUTCFullYear(), index * 3 + 3, 1)),
  };
}

export function namedQuarter(quarter: number, year: number): Period {
  return { start: new Date(Date.UTC(year, (quarter - 1) * 3, 1)), end: new Date(Date.UTC(year, quarter * 3, 1)) };
}

function utcPeriod(year: number, month: number, day: number, unit: "year" | "month" | "day"): Period {
  const start = new Date(Date.UTC(year, month, day));
  const end = new Date(Date.UTC(year + (unit === "year" ? 1 : 0), month + (unit === "month" ? 1 : 0), day + (unit === "day" ? 1 : 0)));
  return { start, end };
}
