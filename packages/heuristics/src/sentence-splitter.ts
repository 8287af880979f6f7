// Splits text into sentences and clauses with JavaScript character offsets, so every
// detector can report evidence that slices back to the source. Sentence boundaries are
// compromise's (abbreviations, initials, quotes); a line break always ends a sentence.
import nlp from "compromise";

export interface Sentence {
  /** The sentence without surrounding whitespace (terminal punctuation kept). */
  text: string;
  /** Character offsets of `text` in the source. */
  start: number;
  end: number;
}

interface OffsetJson {
  offset: { start: number; length: number };
}

export function splitSentences(text: string): Sentence[] {
  const sentences: Sentence[] = [];
  for (const line of text.matchAll(/[^\n]+/g)) {
    let from = 0;
    for (const end of sentenceEnds(line[0])) {
      pushTrimmed(line[0], from, end, sentences, line.index);
      from = end;
    }
  }
  return sentences;
}

/**
 * Where compromise ends each sentence of one line. Its offsets leave out leading punctuation
 * (an opening quote, an emoji), so each sentence runs from the previous end to its own and the
 * last one to the end of the line: no character of the source falls between sentences.
 */
function sentenceEnds(line: string): number[] {
  const found = nlp(line).json({ offset: true }) as OffsetJson[];
  const ends = found.slice(0, -1).map((s) => s.offset.start + s.offset.length);
  return [...ends, line.length];
}

// A new subject after a conjunction or a comma starts a new clause: "I'm Alice and I work at
// Acme", "I went camping, it was a blast". Dashes and semicolons always do.
const SUBJECT = String.raw`(?:I|I'm|I've|I'll|I'd|[Mm]y|it|it's|[Ii]t was|that's|[Tt]hat was|they|they're|[Tt]hey were|we|we're|we've|he|she|there's)\b`;
const JOINT = new RegExp(
  String.raw`(?:,\s*|\s+)(?:and|but|also|so|plus)\s+(?=${SUBJECT})|,\s+(?=(?:it's|it was|that's|that was|they're|they were|which (?:is|was))\b)|\s+[-–—]+\s+|\s*[–—]\s*|(?<=\p{L})-\s+|;\s*`,
  "gu",
);

/** Splits a sentence into clauses at the joints above, keeping offsets into the source. */
export function splitClauses(sentence: Sentence): Sentence[] {
  const clauses: Sentence[] = [];
  let from = 0;
  for (const match of sentence.text.matchAll(JOINT)) {
    pushTrimmed(sentence.text, from, match.index, clauses, sentence.start);
    from = match.index + match[0].length;
  }
  pushTrimmed(sentence.text, from, sentence.text.length, clauses, sentence.start);
  return clauses;
}

function pushTrimmed(text: string, start: number, end: number, into: Sentence[], base = 0): void {
  const raw = text.slice(start, end);
  const lead = raw.length - raw.trimStart().length;
  const trimmed = raw.trim();
  if (trimmed.length === 0) return;
  const at = base + start + lead;
  into.push({ text: trimmed, start: at, end: at + trimmed.length });
}
