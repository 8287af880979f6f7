// No NLP or parsing library is handed more than a bounded slice of text: several of them
// (compromise's sentence tagger above all) cost far more than linear time on a long run of
// text with no full stop. A span longer than the bound is cut at the last sentence end inside
// each window, else at the last whitespace, else at the window's edge, so the work done on a
// span grows linearly with its length whatever the text looks like.

/** The largest slice of text any library is given at once. */
export const MAX_SLICE_CHARS = 20_000;

export interface Span {
  start: number;
  end: number;
}

/** [start, end) of `text` as consecutive spans of at most `max` characters; every span ends where the next starts. */
export function boundedSlices(text: string, start: number, end: number, max = MAX_SLICE_CHARS): Span[] {
  const spans: Span[] = [];
  let from = start;
  while (end - from > max) {
    const cut = cutPoint(text, from, from + max);
    spans.push({ start: from, end: cut });
    from = cut;
  }
  if (end > from) spans.push({ start: from, end });
  return spans;
}

/** Where to end a slice that starts at `from` and may not reach past `limit`: always after `from`. */
function cutPoint(text: string, from: number, limit: number): number {
  const window = text.slice(from, limit);
  const sentence = lastMatchEnd(window, /[.!?。！？]["')\]]*\s/g);
  if (sentence > 0) return from + sentence;
  const space = lastMatchEnd(window, /\s/g);
  if (space > 0) return from + space;
  // Never between the two halves of a surrogate pair.
  const edge = from + window.length;
  return isHighSurrogate(text.charCodeAt(edge - 1)) && edge - 1 > from ? edge - 1 : edge;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** The end offset of the last match in `window`, or -1: one pass over a bounded window. */
function lastMatchEnd(window: string, pattern: RegExp): number {
  let last = -1;
  for (const m of window.matchAll(pattern)) last = m.index + m[0].length;
  return last;
}
