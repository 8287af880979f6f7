// Word-level tests for the objects of casual statements: does a phrase point back into the
// conversation or hold a clause, is it a name, a gerund, a word for something particular.
import { isAbstractWord } from "../lexicons/abstract-lexicon";
import { isCommonWord, isPhaticWord } from "../lexicons/phatic-lexicon";
import { NOT_GERUNDS } from "../lexicons/personal-lexicon";
import { PROPER } from "../statements/statement-grammar";

export const POINTING =
  /\b(?:you|your|yours|ya|u|it|its|they|them|their|he|him|his|she|her|hers|this|that|these|those|we|us|our|me|myself|what|how|when|where|why|which|who|whom|whose|if|because|cause|than|whether|not|no|never|something|anything|everything|stuff|things?|one|ones|other|such|same)\b/i;
export const CLAUSE_VERB =
  /\b(?:is|are|was|were|am|be|been|being|has|had|does|did|can|could|will|would|should|must|might|may)\b|'(?:s|re|ve|ll|d)\b/i;
const PROPER_PHRASE = new RegExp(`^${PROPER}$`, "u");
export const GENERIC_GERUNDS = new Set([
  "playing",
  "doing",
  "working",
  "going",
  "making",
  "getting",
  "trying",
  "using",
  "practicing",
  "practising",
  "training",
  "focusing",
  "planning",
  "thinking",
  "looking",
]);

/** The phrase's words when it neither points into the conversation nor holds a clause. */
export function plainWords(text: string): string[] | undefined {
  if (text.length === 0 || POINTING.test(text) || CLAUSE_VERB.test(text) || /\bmy\b/i.test(text)) return undefined;
  // "+" stays inside a word ("LGBTQ+", "C++"); other punctuation means more than a name.
  if (/[^\p{L}\p{N}\s'&+-]|(?<![\p{L}+])\+/u.test(text)) return undefined;
  return text.split(/\s+/);
}

export function isProperName(text: string): boolean {
  if (!PROPER_PHRASE.test(text)) return false;
  return text.split(/\s+/).every((w) => /^(?:of|and|&|de|du|la|the|for)$/.test(w) || !isCommonWord(w));
}

export function isGerund(word: string | undefined): boolean {
  return word !== undefined && /^[a-z]{2,}ing$/.test(word) && !NOT_GERUNDS.has(word);
}

/** A word that names something particular: not grammar, not chat, not the vocabulary of values. */
export function isConcrete(word: string): boolean {
  return !isPhaticWord(word) && !isAbstractWord(word) && !isAbstractWord(word.replace(/ing$/, ""));
}
