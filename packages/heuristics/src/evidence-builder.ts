// Evidence for heuristic findings: the verbatim quote plus its UTF-8 byte span.
import type { Evidence } from "@recall/contracts";
import { byteSpanOf } from "@recall/contracts";

/** Evidence for text.slice(start, end), trimmed of whitespace and trailing punctuation. */
export function evidenceFor(text: string, start: number, end: number): Evidence {
  let from = start;
  let to = end;
  while (from < to && /\s/.test(text[from] ?? "")) from += 1;
  while (to > from && /[\s.,;:!?]/.test(text[to - 1] ?? "")) to -= 1;
  if (to <= from) to = end;
  return { quote: text.slice(from, to), ...byteSpanOf(text, from, to) };
}
