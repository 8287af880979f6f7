// Trims what is not part of an object's name from a statement's object: frequency and
// degree words, a purpose clause, praise, an appositive. The evidence keeps them all.
import { isAbstractWord } from "../lexicons/abstract-lexicon";
import { isFunctionWord, isPhaticWord } from "../lexicons/phatic-lexicon";
import { isProperName } from "./phrase-words";

/** Frequency and degree words after an object ("hiking a lot", "yoga every week"); kept in the evidence, not the name. */
const TAIL =
  /(?:,?\s+(?:since (?:I was )?(?:a kid|a child|a boy|a girl|a teen|a teenager|little|young|childhood)|as a (?:kid|child)|too|as well|a lot|so much|very much|a ton|lately|recently|these days|nowadays|now|right now|again|together|for fun|anymore|sometimes|often|all the time|a bit|so|really|every (?:day|week|weekend|month|year|morning|night)|each (?:day|week|month)|(?:once|twice|a few times) (?:a|per|every) (?:day|week|month|year)|on (?:the )?weekends|as (?:a|an) (?:career|hobby|job|living|profession|side hustle|side project)))+$/i;
/** "volunteering to help out" is volunteering; "listening to music" and "going to the gym" keep their "to". */
const DETERMINER = /^(?:the|a|an|my|your|his|her|their|our|its|this|that|these|those|some|any|all|each|every)$/i;
const PURPOSE = /\s+(?:in order\s+)?to\s+(\p{L}+)\b.*$/u;

/** "Woodhaven, a small town in the Midwest" names Woodhaven; the description is only evidence. */
export function withoutAppositive(text: string): string {
  const match = /^(.+?),\s+(?:a|an|the)\s+[^,]+$/u.exec(text);
  return match?.[1] !== undefined && isProperName(match[1]) ? match[1] : text;
}

/** "the coolest Harry Potter party" is a Harry Potter party: praise is not part of a name ("pride parade" keeps its "pride"). */
export function withoutPraise(text: string): string {
  const words = text.split(/\s+/);
  let at = 0;
  if (/^(?:really|very|so|super|pretty|totally|absolutely)$/i.test(words[0] ?? "") && words.length > 2) at = 2;
  else if (isSuperlative(words[0] ?? "") && words.length > 1) at = 1;
  return words.slice(at).join(" ");
}

function isSuperlative(word: string): boolean {
  const base = word.toLowerCase().replace(/est$/, "");
  return /^\p{Ll}+est$/u.test(word) && [base, `${base}e`, base.replace(/(.)\1$/, "$1")].some((w) => isPhaticWord(w) || isAbstractWord(w));
}

export function withoutTail(phrase: string): string {
  return phrase.trim().replace(TAIL, "").trim();
}

/** Without a purpose clause, for objects (not plans, where the purpose is the plan). */
export function withoutPurpose(phrase: string): string {
  const text = withoutTail(phrase);
  const purpose = PURPOSE.exec(text);
  const verb = purpose?.[1] ?? "";
  const isVerb = (isAbstractWord(verb) || isFunctionWord(verb)) && !DETERMINER.test(verb);
  return purpose && isVerb ? text.slice(0, purpose.index).trim() : text;
}
