// Word-level view of a sentence for the small-talk gate: which words are phatic, which
// are names in address, which belong to set phrases, and whether the speaker talks about
// themself.
import { PHATIC_PHRASES, isPhaticWord } from "../lexicons/phatic-lexicon";
import { findVocatives } from "../speakers/vocative-finder";

export interface Token {
  word: string;
  start: number;
  end: number;
}

export interface Analysis {
  text: string;
  tokens: Token[];
  /** Tokens outside set phrases and names in address. */
  free: Token[];
  /** Free tokens that are not phatic words. */
  open: Token[];
  /** The speaker talks about themself outside set phrases ("I", "my", "me", "we"). */
  aboutSelf: boolean;
}

const TOKEN = /[\p{L}\p{N}]+(?:'[\p{L}]+)*/gu;
export const FIRST_PERSON = new Set([
  "i",
  "me",
  "my",
  "mine",
  "myself",
  "we",
  "us",
  "our",
  "ours",
  "i'm",
  "i've",
  "i'll",
  "i'd",
  "we're",
  "we've",
  "we'll",
  "we'd",
]);

export function analyse(text: string): Analysis {
  const tokens = [...text.matchAll(TOKEN)].map((m) => ({ word: m[0], start: m.index ?? 0, end: (m.index ?? 0) + m[0].length }));
  const vocatives = findVocatives(text, tokens);
  const phrased = phraseCovered(text.toLowerCase());
  const free = tokens.filter((t, i) => !vocatives.has(i) && !phrased[t.start]);
  return {
    text,
    tokens,
    free,
    open: free.filter((t) => !isPhaticWord(t.word)),
    aboutSelf: free.some((t) => FIRST_PERSON.has(t.word.toLowerCase())),
  };
}

/** Character positions covered by a phatic expression ("take care", "good luck"). */
function phraseCovered(lower: string): boolean[] {
  const covered: boolean[] = new Array(lower.length).fill(false);
  for (const phrase of PHATIC_PHRASES) {
    for (const match of lower.matchAll(phrase)) covered.fill(true, match.index, (match.index ?? 0) + match[0].length);
  }
  return covered;
}
