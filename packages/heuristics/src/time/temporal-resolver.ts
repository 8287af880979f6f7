// Temporal phrases ("since January", "until next quarter", "last year", "from March 2023")
// resolved with chrono-node against the input's reference time, then turned into the
// validity interval of the facts they qualify.
import type { ParsedResult } from "chrono-node";
// English alone: the package's root loads every locale's parsers (about 0.7 s of CPU in each process and CPU thread
// that starts), and chrono's root `parse` is English's casual parser anyway.
import * as chrono from "chrono-node/en";
import { durationPhrases, weekPhrases } from "../text/relative-phrases";
import { namedQuarter, periodOf, quarterPeriod, yearPeriod, type Period } from "./temporal-period";

/** "for": a duration up to the reference time ("for three years"). */
export type TemporalRelation = "since" | "until" | "through" | "range" | "at" | "for";

export interface TemporalPhrase {
  text: string;
  /** Character offsets in the text that was searched. */
  start: number;
  end: number;
  relation: TemporalRelation;
  period: Period;
  /** For "from March to June": the second period. */
  rangeEnd?: Period;
}

/** How a fact relates to its time phrase: a current state, a finished past state, a change, or a plan. */
export type FactAspect = "state" | "past_state" | "change" | "future";

export interface Validity {
  valid_from?: string;
  valid_to?: string;
}

const PREPOSITION = /(since|from|starting|as of|after|until|till|til|before|through|thru|by|in|during)\s+(?:the\s+)?$/i;
const QUARTER = /\b(?:(this|next|last|the next|the last)\s+quarter|Q([1-4])\s+((?:19|20)\d{2}))\b/gi;
const BARE_YEAR = /\b(since|from|until|till|through|in|during|by|before|after)\s+((?:19|20)\d{2})\b(?!\s*(?:am|pm|:))/gi;

export function findTemporalPhrases(text: string, referenceTime: Date): TemporalPhrase[] {
  const custom = [
    ...quarterPhrases(text, referenceTime),
    ...bareYearPhrases(text),
    ...weekPhrases(text, referenceTime).map((p) => withPreposition(text, p.start, p.end - p.start, p.period)),
    ...durationPhrases(text, referenceTime),
  ];
  const parsed = chrono
    .parse(text, { instant: referenceTime, timezone: "UTC" })
    .map((result) => fromChrono(text, result, referenceTime))
    .filter((p): p is TemporalPhrase => p !== undefined)
    .filter((p) => !custom.some((c) => p.start < c.end && c.start < p.end));
  return [...custom, ...parsed].sort((a, b) => a.start - b.start);
}

export function validityFor(phrase: TemporalPhrase, aspect: FactAspect): Validity {
  const from = phrase.period.start.toISOString();
  switch (phrase.relation) {
    case "since":
      return { valid_from: from };
    case "until":
      return { valid_to: from };
    case "through":
      return { valid_to: phrase.period.end.toISOString() };
    case "range":
      return { valid_from: from, valid_to: (phrase.rangeEnd ?? phrase.period).end.toISOString() };
    case "at":
      // A present state dated by a point ("in 2024 I live in Berlin") is observed then, not begun then
      // (the time rule, packages/memory/src/truth/time-rule.ts); a change or a plan dates its beginning.
      if (aspect === "past_state") return { valid_from: from, valid_to: phrase.period.end.toISOString() };
      return aspect === "state" ? {} : { valid_from: from };
    case "for":
      // "I lived there for three years" ended at some unknown time, and "going to Paris for two weeks"
      // has not begun: only an ongoing state dates its start.
      return aspect === "past_state" || aspect === "future" ? {} : { valid_from: from };
  }
}

/** Merged validity of every phrase in a span of text (later phrases fill what earlier ones left open). */
export function validityIn(phrases: TemporalPhrase[], aspect: FactAspect): Validity {
  return phrases.reduce<Validity>((acc, p) => ({ ...validityFor(p, aspect), ...acc }), {});
}

/** A month's name alone; also a given name (June, April, May, Jun), so it needs a word before it that makes it a time. */
const BARE_MONTH =
  /^(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?,?$/i;
const MONTH_MODIFIER = /\b(?:last|next|this|early|late|mid|end of|beginning of|start of|of)\s+$/i;

function fromChrono(text: string, result: ParsedResult, reference: Date): TemporalPhrase | undefined {
  const before = text.slice(Math.max(0, result.index - 16), result.index);
  const prep = PREPOSITION.exec(before)?.[1]?.toLowerCase();
  // "Thanks Jun, I started at Acme" names a person: a bare month counts only after a preposition or a modifier.
  if (BARE_MONTH.test(result.text.trim()) && prep === undefined && !MONTH_MODIFIER.test(before)) return undefined;
  const relation = relationOf(prep, Boolean(result.end));
  const forward = relation === "until" || relation === "through" ? forwardResult(result, reference) : result;
  const parsed = periodOf(forward.start);
  if (parsed === undefined) return undefined;
  const modifier = MONTH_DIRECTION.exec(before);
  const period = monthInDirection(parsed, forward, reference, modifier ? (modifier[1]!.toLowerCase() as "last" | "next") : relation);
  const start =
    prep !== undefined && relation !== "at"
      ? result.index - prepLength(text, result.index)
      : modifier
        ? result.index - modifier[0].length
        : result.index;
  const rangeEnd = forward.end ? periodOf(forward.end) : undefined;
  return {
    text: text.slice(start, result.index + result.text.length),
    start,
    end: result.index + result.text.length,
    relation,
    period,
    rangeEnd,
  };
}

function relationOf(prep: string | undefined, isRange: boolean): TemporalRelation {
  if (isRange) return "range";
  if (prep === undefined) return "at";
  if (["since", "from", "starting", "as of", "after"].includes(prep)) return "since";
  if (["until", "till", "til", "before", "by"].includes(prep)) return "until";
  if (prep === "through" || prep === "thru") return "through";
  return "at";
}

/** "last June", "next March": the month's name with a direction (its year is the one the direction names). */
const MONTH_DIRECTION = /\b(last|next)\s+$/i;

/**
 * A month named without its year, read in the direction the words give it: "last June" and "since June" said in
 * May are last year's June (the most recent one that has begun: "since" dates a beginning, which cannot lie ahead);
 * "next March" said in May is next year's. chrono takes the nearest such month, either side of the reference.
 */
function monthInDirection(period: Period, result: ParsedResult, reference: Date, direction: TemporalRelation | "last" | "next"): Period {
  const start = result.start;
  if (start.isCertain("year") || !start.isCertain("month") || start.isCertain("day")) return period;
  const thisMonth = Date.UTC(reference.getUTCFullYear(), reference.getUTCMonth(), 1);
  const begins = period.start.getTime();
  if (direction === "last" && begins >= thisMonth) return shiftYears(period, -1);
  if (direction === "since" && begins > thisMonth) return shiftYears(period, -1);
  if (direction === "next" && begins <= thisMonth) return shiftYears(period, 1);
  return period;
}

function shiftYears(period: Period, years: number): Period {
  const shift = (d: Date) => new Date(Date.UTC(d.getUTCFullYear() + years, d.getUTCMonth(), d.getUTCDate()));
  return { start: shift(period.start), end: shift(period.end) };
}

/** "until December" said in May means the coming December, not the last one. */
function forwardResult(result: ParsedResult, reference: Date): ParsedResult {
  if (result.start.isCertain("year") || result.start.date() >= reference) return result;
  return chrono.parse(result.text, { instant: reference, timezone: "UTC" }, { forwardDate: true })[0] ?? result;
}

function prepLength(text: string, index: number): number {
  const match = PREPOSITION.exec(text.slice(Math.max(0, index - 16), index));
  return match?.[0].length ?? 0;
}

function quarterPhrases(text: string, reference: Date): TemporalPhrase[] {
  return [...text.matchAll(QUARTER)].map((match) => {
    const which = match[1]?.toLowerCase().replace("the ", "");
    const period = which
      ? quarterPeriod(reference, which === "next" ? 1 : which === "last" ? -1 : 0)
      : namedQuarter(Number(match[2]), Number(match[3]));
    return withPreposition(text, match.index ?? 0, match[0].length, period);
  });
}

function bareYearPhrases(text: string): TemporalPhrase[] {
  return [...text.matchAll(BARE_YEAR)].map((match) => {
    const yearAt = (match.index ?? 0) + match[0].length - (match[2] ?? "").length;
    return withPreposition(text, yearAt, (match[2] ?? "").length, yearPeriod(Number(match[2])));
  });
}

function withPreposition(text: string, index: number, length: number, period: Period): TemporalPhrase {
  const prep = PREPOSITION.exec(text.slice(Math.max(0, index - 16), index));
  const relation = relationOf(prep?.[1]?.toLowerCase(), false);
  const start = prep && relation !== "at" ? index - prep[0].length : index;
  return { text: text.slice(start, index + length), start, end: index + length, relation, period };
}
