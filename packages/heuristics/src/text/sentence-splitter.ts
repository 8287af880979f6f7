// Splits text into sentences and clauses with JavaScript character offsets, so every
// detector can report evidence that slices back to the source. Sentence boundaries are
// compromise's (abbreviations, initials, quotes; see parsed-turn.ts); a line break always ends a sentence.
import { parseTurn, pushTrimmed } from "./parsed-turn";

export interface Sentence {
  /** The sentence without surrounding whitespace (terminal punctuation kept). */
  text: string;
  /** Character offsets of `text` in the source. */
  start: number;
  end: number;
}

/** The sentences of a text (runHeuristics takes them from its one parse of the turn). */
export function splitSentences(text: string): Sentence[] {
  return parseTurn(text).sentences;
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
