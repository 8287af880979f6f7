// What a search query asks, beyond its words: whether it asks for a time ("when did…",
// "what year…"), and which period it names ("in May 2023", "last week", resolved against
// the search's `now` with the extractor's temporal reader). The full-text ranking uses
// both (search-bm25.ts): a time question prefers text that states a time, a named period
// prefers text said within it. Words that frame a question ("what kind of", "would …
// likely") describe the answer's shape, not its content, so they are not matched.
import { findTemporalPhrases } from "@recall/heuristics";

export interface SearchIntent {
  /** The words to match and rank: the query less its framing words (the whole query when nothing else is left). */
  text: string;
  asksWhen: boolean;
  period?: { start: Date; end: Date };
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
  };
}
