// The words of a prepared clause as the turn's one parse has them (parsed-turn.ts), with the
// contractions of "I" and "we" spelled out ("I'm" reads "I am", "we've" "we have"), so the open
// reader sees the auxiliary as a word without parsing the clause again. The clause's body lost
// its markers and time phrases (clause-preparer.ts): its words are matched to the parse's in
// order, and the parse's words it no longer has are left out.
import { normaliseApostrophes } from "./clause-preparer";
import type { ParsedTerm, ParsedTurn } from "./parsed-turn";
import type { Sentence } from "./sentence-splitter";

export interface ClauseTerm {
  text: string;
  normal: string;
  tags: string[];
  /** Offsets in the source text (for verb lemmas and noun phrases). */
  start: number;
  end: number;
  /** Offset in the expanded body. */
  at: number;
}

export interface ClauseReading {
  /** The body with the contractions of "I" and "we" spelled out. */
  text: string;
  terms: ClauseTerm[];
}

export function readClauseTerms(parsed: ParsedTurn, clause: Sentence, body: string): ClauseReading {
  const terms = parsed.terms.filter((t) => t.start >= clause.start && t.end <= clause.end);
  const reading: ClauseReading = { text: "", terms: [] };
  let copied = 0;
  for (let i = 0; i < terms.length; i++) {
    const term = terms[i]!;
    if (term.text === "") continue;
    const followers = contractionParts(terms, i);
    const surface = normaliseApostrophes(term.text);
    const at = matchAt(body, copied, surface);
    if (at === undefined) continue;
    reading.text += body.slice(copied, at);
    if (spelledOut(term, followers)) spellOut(reading, term, followers, surface);
    else keep(reading, [term, ...followers], surface);
    copied = at + surface.length;
  }
  reading.text += body.slice(copied);
  return reading;
}

/** The later words of the contraction `terms[i]` starts (compromise gives them as terms without text). */
function contractionParts(terms: ParsedTerm[], i: number): ParsedTerm[] {
  const parts: ParsedTerm[] = [];
  for (let j = i + 1; j < terms.length && terms[j]!.text === ""; j++) parts.push(terms[j]!);
  return parts;
}

/** Where `surface` is in `body` at `from`, past whitespace and punctuation only; undefined when the body left the word out. */
function matchAt(body: string, from: number, surface: string): number | undefined {
  let at = from;
  while (at < body.length && !body.startsWith(surface, at) && /[\s\p{P}\p{S}]/u.test(body[at]!)) at++;
  return body.startsWith(surface, at) ? at : undefined;
}

function spelledOut(term: ParsedTerm, followers: ParsedTerm[]): boolean {
  return followers.length > 0 && /^(?:i|we)$/i.test(term.implicit ?? "") && followers.every((f) => f.implicit);
}

function spellOut(reading: ClauseReading, term: ParsedTerm, followers: ParsedTerm[], surface: string): void {
  const first = term.implicit === "i" ? "I" : /^\p{Lu}/u.test(surface) ? capitalise(term.implicit!) : term.implicit!;
  push(reading, term, first, term.implicit!);
  for (const part of followers) {
    reading.text += " ";
    push(reading, part, part.implicit!, part.implicit!);
  }
}

function keep(reading: ClauseReading, terms: ParsedTerm[], surface: string): void {
  const at = reading.text.length;
  for (const t of terms) reading.terms.push({ text: t.text, normal: t.normal, tags: t.tags, start: t.start, end: t.end, at });
  reading.text += surface;
}

function push(reading: ClauseReading, term: ParsedTerm, text: string, normal: string): void {
  reading.terms.push({ text, normal, tags: term.tags, start: term.start, end: term.end, at: reading.text.length });
  reading.text += text;
}

function capitalise(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
