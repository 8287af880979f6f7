// What a search query asks, beyond its words: whether it asks for a time ("when did…",
// "what year…"), and which period it names ("in May 2023", "last week", resolved against
// the search's `now` with the extractor's temporal reader). The full-text ranking uses
// both (search-bm25.ts): a time question prefers text that states a time, a named period
// prefers text said within it. Words that frame a question ("what kind of", "would …
// likely") describe the answer's shape, not its content, so they are not matched.
import { findTemporalPhrases } from "@recall/heuristics/time";

export interface SearchIntent {
  /** The words to match and rank: the query less its framing words (the whole query when nothing else is left). */
  text: string;
  asksWhen: boolean;
  period?: { start: Date; end: Date };
  /** Months (1–12) and years the query names, whatever the rest of the date. */
  calendar: { months: number[]; years: number[] };
}

const ASKS_WHEN = /\b(when|what (date|day|year|month|time|week)|which (date|day|year|month|week)|how long ago)\b/i;

/** Framing of a question rather than its topic; English stop words are dropped by the text search configuration. */
const FRAMING = new Set(
  "kind kinds type types sort sorts likely would could might ever specific particular mention mentioned describe many much".split(" "),
);

export function searchIntent(query: string, now: Date): SearchIntent {
  const kept = query.split(/(\s+)/).filter((w) => !FRAMING.has(w.toLowerCase().replace(/[^a-z]/g, "")));
  const text = kept.join("").trim();
  const phrase = findTemporalPhrases(query, now).find((p) => p.period.end > p.period.start);
  return {
    text: /[a-z0-9]/i.test(text) ? text : query,
    asksWhen: ASKS_WHEN.test(query),
    period: phrase && { start: phrase.period.start, end: (phrase.rangeEnd ?? phrase.period).end },
    calendar: calendarNames(query),
  };
}

const MONTHS = "january february march april may june july august september october november december".split(" ");

/** "May" counts as the month only capitalised after a sentence's first word (otherwise it is mostly the verb). */
function calendarNames(query: string): SearchIntent["calendar"] {
  const months = new Set<number>();
  for (const m of query.matchAll(/(^|\s)(\p{L}+)/gu)) {
    const i = MONTHS.indexOf(m[2]!.toLowerCase());
    if (i >= 0 && (i !== 4 || (m[2] === "May" && m.index > 0))) months.add(i + 1);
  }
  const years = [...query.matchAll(/\b(19|20)\d\d\b/g)].map((m) => Number(m[0]));
  return { months: [...months], years: [...new Set(years)] };
}
