// Splits text into sentences and clauses with JavaScript character offsets, so every
// detector can report evidence that slices back to the source.

export interface Sentence {
  /** The sentence without surrounding whitespace (terminal punctuation kept). */
  text: string;
  /** Character offsets of `text` in the source. */
  start: number;
  end: number;
}

// "Dr. Chen" or "e.g. this" must not end a sentence.
const ABBREVIATIONS = new Set(["mr", "mrs", "ms", "dr", "st", "vs", "etc", "e.g", "i.e", "jr", "sr", "prof", "inc", "co"]);
const BOUNDARY = /[.!?…]+["')\]]*(?=\s|$)|\n+/g;

export function splitSentences(text: string): Sentence[] {
  const sentences: Sentence[] = [];
  let from = 0;
  for (const match of text.matchAll(BOUNDARY)) {
    const end = match.index + match[0].length;
    if (match[0].startsWith(".") && endsWithAbbreviation(text.slice(from, match.index))) continue;
    pushTrimmed(text, from, end, sentences);
    from = end;
  }
  pushTrimmed(text, from, text.length, sentences);
  return sentences;
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

function endsWithAbbreviation(before: string): boolean {
  const last = /([\p{L}.]+)$/u.exec(before)?.[1];
  if (last === undefined) return false;
  // A lone capital other than "I" is an initial ("J. K. Rowling").
  return ABBREVIATIONS.has(last.toLowerCase()) || /^[A-HJ-Z]$/.test(last);
}

function pushTrimmed(text: string, start: number, end: number, into: Sentence[], base = 0): void {
  const raw = text.slice(start, end);
  const lead = raw.length - raw.trimStart().length;
  const trimmed = raw.trim();
  if (trimmed.length === 0) return;
  const at = base + start + lead;
  into.push({ text: trimmed, start: at, end: at + trimmed.length });
}
