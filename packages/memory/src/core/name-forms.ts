// The forms of a name that look-alike spellings are reduced to before identity keys compare them.
//
// A name is what a reader sees, not the code points that draw it. Three tricks make one visible
// name into several strings: invisible characters (zero-width spaces and joiners, soft hyphens,
// variation selectors, the Default_Ignorable_Code_Point class), bidirectional controls (the
// Bidi_Control class: a right-to-left override shows "ecilA" as "Alice"), and letters of another
// script that look like Latin ones (Greek Α, Cyrillic с: UTS #39 confusables). Each is undone here.
import { confusables } from "unicode-confusables";

const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Bidi_Control}]/gu;
const RIGHT_TO_LEFT_OVERRIDE = "\u202e";
/** Pop directional formatting, pop directional isolate, or the end of the text: where an override stops. */
const OVERRIDE_RUN = /\u202e([^\u202c\u2069]*)/gu;
const STRONG_RTL = /[\p{Script=Hebrew}\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}]/u;
const LATIN = /\p{Script=Latin}/u;
const LATIN_ONLY = /^\p{Script=Latin}+$/u;
const OTHER_SCRIPT_LETTER = /(?![\p{Script=Latin}\p{Script=Common}])\p{L}/u;
const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/**
 * The name as it is shown: NFKC, an override's run in the order it is displayed, and no invisible
 * or bidirectional control left. Stored display names take this form, so a name can never carry
 * a control that reorders the text printed after it (a system prompt, a log line).
 */
export function visibleName(name: string): string {
  return shownOrder(name.normalize("NFKC")).replace(INVISIBLE, "").normalize("NFKC").trim();
}

/**
 * A right-to-left override draws the letters of a left-to-right script backwards: a reader of
 * "\u202EecilA" sees "Alice". Right-to-left letters under it are drawn as they always are.
 */
function shownOrder(name: string): string {
  if (!name.includes(RIGHT_TO_LEFT_OVERRIDE)) return name;
  return name.replace(OVERRIDE_RUN, (_run, text: string) => (STRONG_RTL.test(text) ? text : reversed(text)));
}

function reversed(text: string): string {
  const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
  return [...segmenter.segment(text)]
    .map((s) => s.segment)
    .reverse()
    .join("");
}

/**
 * Within a word that mixes Latin letters with another script's, the other script's letters are
 * replaced by the Latin letters they are confusable with ("Αlice" with a Greek Alpha is "Alice").
 * A word in one script is left alone: "Αλίκη" is a Greek name, and "Tom 工藤" mixes scripts only
 * across words, as bilingual names do.
 */
export function latinFolded(name: string): string {
  return name.replace(WORD, (word) => (LATIN.test(word) && OTHER_SCRIPT_LETTER.test(word) ? foldToLatin(word) : word));
}

/**
 * The Latin name a name written wholly in another script looks like ("Аӏісе" in Cyrillic looks
 * like "Alice"), or undefined when it has Latin letters, or a letter with no Latin look-alike.
 * Such a name is a real name in its own script as often as a spoof, so it is never merged by
 * this: the resolver only flags it when an entity of the look-alike name exists.
 */
export function latinLookalike(name: string): string | undefined {
  if (LATIN.test(name) || !OTHER_SCRIPT_LETTER.test(name)) return undefined;
  const folded = foldToLatin(name);
  return OTHER_SCRIPT_LETTER.test(folded) ? undefined : folded;
}

/** Other scripts' letters replaced by their UTS #39 prototype where that prototype is Latin letters. */
function foldToLatin(text: string): string {
  return confusables(text.normalize("NFD"))
    .map(({ point, similarTo }) =>
      similarTo !== undefined && OTHER_SCRIPT_LETTER.test(point) && LATIN_ONLY.test(similarTo) ? similarTo : point,
    )
    .join("")
    .normalize("NFKC");
}
