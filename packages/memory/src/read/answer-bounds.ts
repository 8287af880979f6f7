// Every read answer is bounded in bytes (#42): stored text is only as long as its write cap
// allowed (a turn 100,000 characters, a document 10 MiB), and rows written before the caps
// may be longer still, so a read never passes a stored text through whole. Long texts are cut
// to an excerpt around the words that matched, long names and values are clipped with a flag,
// and a page ends early when the next item would take the answer past its byte budget.
// The caps are declared here once; docs/limits.md lists them.

/** The caps of the read routes' answers (/query, /context, /state, /profile, a session's turns). */
export const READ_LIMITS = {
  /** The most bytes of JSON one read answer holds. */
  answerBytes: 1_000_000,
  /**
   * Characters of a /query hit's text: an excerpt around the matched words. JSON writes a character in
   * at most 6 bytes (`\u0001`), so 100 hits stay near 600 KB whatever their text.
   */
  excerptChars: 1_000,
  /** Characters of a value in /state and /profile: an attribute's value, an instruction's description, an unknown's reason. */
  valueChars: 2_000,
  /** Characters of a name: an entity's name and aliases, a key, a predicate, an instruction's label. */
  nameChars: 200,
  /** Aliases listed for one entity in /profile (the entity's history has them all). */
  aliases: 50,
  /** Bytes of a document's text in one GET …/documents/{id}/text answer (at most 6 bytes of JSON each). */
  textRangeBytes: 150_000,
} as const;

/** What the items of one answer may take: its budget less the answer's own fields and cursor, with room to spare. */
export const ITEMS_BYTES = READ_LIMITS.answerBytes - 4_096;

/** A text as a reader receives it: cut or whole, and where the piece sits in the whole (UTF-8 bytes). */
export interface Excerpt {
  text: string;
  truncated: boolean;
  /** Only when truncated: the piece's byte offsets in the whole text and the whole text's length in bytes. */
  excerpt?: { start_byte: number; end_byte: number; text_bytes: number };
}

/** The JSON bytes `value` takes in an answer (express writes it with JSON.stringify). */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? "", "utf8");
}

/** `text` cut to `max` characters, at a character boundary, with whether it was cut. */
export function clipped(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  return { text: text.slice(0, boundaryBefore(text, max)), truncated: true };
}

/**
 * At most `max` characters of `text`, taken where the most distinct words of `query` occur
 * close together; a text that fits is returned whole. Where no word of the query occurs (a
 * vector hit, a stemmed form the search matched), the excerpt is the text's beginning.
 */
export function excerptOf(text: string, query: string, max = READ_LIMITS.excerptChars): Excerpt {
  if (text.length <= max) return { text, truncated: false };
  const first = bestMatchStart(text, queryStems(query), max);
  // A little of what precedes the match, so the words are read in their sentence.
  let start = Math.max(0, Math.min(first - Math.floor(max / 5), text.length - max));
  if (isLowSurrogate(text, start)) start += 1;
  const end = boundaryBefore(text, Math.min(text.length, start + max));
  const startByte = Buffer.byteLength(text.slice(0, start), "utf8");
  const piece = text.slice(start, end);
  const excerpt = {
    start_byte: startByte,
    end_byte: startByte + Buffer.byteLength(piece, "utf8"),
    text_bytes: startByte + Buffer.byteLength(text.slice(start), "utf8"),
  };
  return { text: piece, truncated: true, excerpt };
}

/** Matches looked at in one text: bounds the work on a text that repeats the query's word throughout. */
const MAX_MATCHES = 2_000;
const SUFFIXES = /(?:ing|ed|es|s|ly)$/u;

/**
 * The query's words as the prefixes a match starts with: lower-cased, a common English ending
 * dropped (the full-text search stems, so "meetings" finds "meeting"), at least 3 characters.
 */
export function queryStems(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const stems = words.map((w) => (w.length > 4 ? w.replace(SUFFIXES, "") : w)).filter((w) => w.length >= 3);
  return [...new Set(stems)].slice(0, 32);
}

/** Where the window of `max` characters holding the most distinct stems starts its first match; 0 without a match. */
function bestMatchStart(text: string, stems: string[], max: number): number {
  if (stems.length === 0) return 0;
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])(?:${stems.map(escapeRegExp).join("|")})`, "giu");
  const matches: { at: number; stem: string }[] = [];
  for (const m of text.matchAll(pattern)) {
    matches.push({ at: m.index, stem: m[0].toLowerCase() });
    if (matches.length >= MAX_MATCHES) break;
  }
  return widestWindow(matches, max);
}

/** Two pointers over the matches in text order: the window with the most distinct stems, the earliest on a tie. */
function widestWindow(matches: { at: number; stem: string }[], max: number): number {
  const counts = new Map<string, number>();
  let best = { start: matches[0]?.at ?? 0, distinct: 0 };
  let left = 0;
  for (const m of matches) {
    counts.set(m.stem, (counts.get(m.stem) ?? 0) + 1);
    while (m.at - matches[left]!.at > max / 2) {
      const stem = matches[left]!.stem;
      const n = counts.get(stem)! - 1;
      if (n === 0) counts.delete(stem);
      else counts.set(stem, n);
      left += 1;
    }
    if (counts.size > best.distinct) best = { start: matches[left]!.at, distinct: counts.size };
  }
  return best.start;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** `end`, or one less where `end` would split a surrogate pair. */
function boundaryBefore(text: string, end: number): number {
  return end > 0 && end < text.length && isLowSurrogate(text, end) ? end - 1 : end;
}

function isLowSurrogate(text: string, i: number): boolean {
  const code = text.charCodeAt(i);
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * How many of `items` (in order) fit in `budget` bytes of JSON; at least one, so a page always
 * moves on. The caller's page then ends after them and its cursor continues from there.
 */
export function countWithin(items: readonly unknown[], budget: number): number {
  let used = 0;
  for (let i = 0; i < items.length; i++) {
    used += jsonBytes(items[i]) + 1;
    if (used > budget) return Math.max(1, i);
  }
  return items.length;
}
