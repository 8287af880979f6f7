// Names used to address someone ("Thanks, Melanie!", "Hey Mel!") say nothing about
// anyone, so the small-talk gate ignores them.
import { INTERJECTIONS, isCommonWord } from "../lexicons/phatic-lexicon";
import type { Token } from "../text/token-analysis";

const ADDRESS_OPENERS = new Set([...INTERJECTIONS, "dear", "morning", "night", "later", "buddy", "you"]);

/** Indexes of tokens that are names in address position. */
export function findVocatives(text: string, tokens: Token[]): Set<number> {
  const found = new Set<number>();
  for (let i = 0; i < tokens.length; i += 1) {
    const run = nameRun(tokens, i);
    if (run === 0) continue;
    const last = tokens[i + run - 1];
    if (last && opensAddress(text, tokens, i) && closesAddress(text, last.end)) {
      for (let k = i; k < i + run; k += 1) found.add(k);
    }
    i += run - 1;
  }
  return found;
}

/** How many capitalised, uncommon words start at i (a name of one or two words). */
function nameRun(tokens: Token[], i: number): number {
  let run = 0;
  while (run < 2) {
    const token = tokens[i + run];
    if (!token || !/^\p{Lu}/u.test(token.word) || isCommonWord(token.word) || /^I('|$)/.test(token.word)) break;
    run += 1;
  }
  return run;
}

function opensAddress(text: string, tokens: Token[], i: number): boolean {
  const token = tokens[i];
  if (!token) return false;
  const gap = text.slice(tokens[i - 1]?.end ?? 0, token.start);
  if (/,\s*$/.test(gap)) return true;
  const previous = tokens[i - 1];
  if (previous === undefined) return /^[\s\p{P}\p{S}]*$/u.test(gap) && /^\s*,/.test(text.slice(token.end));
  return /^\s+$/.test(gap) && ADDRESS_OPENERS.has(previous.word.toLowerCase());
}

function closesAddress(text: string, end: number): boolean {
  return /^(?:\s*[,!?.…:;)]|\s*$|\s*[\p{Extended_Pictographic}])/u.test(text.slice(end));
}
