// Two kinds of sentence that mention things yet add nothing new: praise for something the
// other person brought up ("wow, that agency looks great!") and open questions that ask
// without presupposing ("what kinda jobs are you thinking of?").
import { isQuestionWord } from "../lexicons/abstract-lexicon";
import { isCommonWord, isFunctionWord } from "../lexicons/phatic-lexicon";
import type { Analysis, Token } from "../text/token-analysis";

// Distal and second-person pointers: "that dress", "your studio". "This"/"these" more often
// point at the speaker's own things ("these family times") and so are left out.
const POINTING = new Set(["that", "those", "your", "ur", "such"]);
const DEFINITE = new Set(["the", "this", "that", "these", "those", "your", "his", "her", "their", "its", "ur"]);
const PREPOSITIONS = new Set(["at", "in", "to", "with", "for", "on", "from", "about", "into", "of", "by", "during", "after", "before"]);

const EVALUATED = /^(?:it|that|this|which)$/i;
const EVALUATED_IS = /^(?:it's|that's|its)$/i;
const LINKING = /^(?:is|was|are|were|looks?|looked|seems?|seemed|sounds?|sounded|feels?|felt|has|had|must|must've|will|would|gonna)$/i;

/** "It was a blast", "that's so relaxing": "it" or "that" and a linking verb; the caller checks the rest is praise. People ("they're a real support") are left out: praise of them says something about them. */
export function isEvaluation(a: Analysis): boolean {
  if (a.aboutSelf || isQuestion(a.text)) return false;
  // Short, and no infinitive or clause after it: "it's inspiring to see someone …" rates a person.
  if (a.tokens.length > 7 || a.tokens.some((t) => /^(?:to|when|that|how|who|because)$/i.test(t.word))) return false;
  const [first = "", second = ""] = a.free.map((t) => t.word);
  return EVALUATED_IS.test(first) || (EVALUATED.test(first) && LINKING.test(second));
}

/** "You really put in the work", "keep going!": praise or cheer addressed to the listener, not about the speaker. */
export function isEncouragement(a: Analysis): boolean {
  return !a.aboutSelf && a.free.some((t) => /^(?:you|your|you're|you've|you'll|yourself)$/i.test(t.word));
}

export function isQuestion(text: string): boolean {
  return /\?["')\]\s]*$/.test(text);
}

/** Every content word sits in a noun phrase opened by a pointing word, outside a prepositional phrase, and none is a name. */
export function isReaction(a: Analysis, content: Token[]): boolean {
  if (a.aboutSelf || isQuestion(a.text)) return false;
  return content.every((t) => !isName(t, a) && openedBy(a.tokens, t, POINTING) && !afterPreposition(a.tokens, t));
}

/** No first person, no name, at most two content words, none presupposed ("how's the studio?", "how's it going with yoga?"). */
export function isOpenQuestion(a: Analysis, content: Token[]): boolean {
  if (!isQuestion(a.text) || a.aboutSelf) return false;
  const asked = content.filter((t) => !isQuestionWord(t.word));
  // "Do you like X?" asks about the listener's taste and takes nothing for granted, so it may name a little more.
  const limit = asksListener(a) ? 4 : 2;
  if (asked.length > limit || asked.some((t) => isName(t, a))) return false;
  return !asked.some((t) => openedBy(a.tokens, t, DEFINITE) || presupposedByPreposition(a.tokens, t));
}

/** A yes/no question with "you" as its subject: "Do you like …", "Have you ever tried …". */
function asksListener(a: Analysis): boolean {
  const [aux = "", subject = ""] = a.free.map((t) => t.word.toLowerCase());
  return /^(?:do|did|have|are|were|would|could|can|will)$/.test(aux) && subject === "you";
}

/** "with yoga" presupposes the yoga; "what kind of music" only asks about a kind. */
function presupposedByPreposition(tokens: Token[], token: Token): boolean {
  const at = tokens.indexOf(token);
  const before = tokens[at - 1]?.word.toLowerCase() ?? "";
  return PREPOSITIONS.has(before) && !(before === "of" && isQuestionWord(tokens[at - 2]?.word ?? ""));
}

function isName(token: Token, a: Analysis): boolean {
  return /^\p{Lu}/u.test(token.word) && !isCommonWord(token.word) && token !== a.tokens[0];
}

/** "at your dance studio" places someone somewhere; a bare "your studio" is mere praise. */
function afterPreposition(tokens: Token[], token: Token): boolean {
  const at = tokens.indexOf(token);
  for (let i = at - 1; i >= Math.max(0, at - 4); i -= 1) {
    const word = tokens[i]?.word.toLowerCase() ?? "";
    if (POINTING.has(word)) return PREPOSITIONS.has(tokens[i - 1]?.word.toLowerCase() ?? "");
  }
  return false;
}

/** Whether the noun phrase holding `token` starts with one of `openers` (up to three words back). */
function openedBy(tokens: Token[], token: Token, openers: Set<string>): boolean {
  const at = tokens.indexOf(token);
  for (let i = at - 1; i >= Math.max(0, at - 3); i -= 1) {
    const word = tokens[i]?.word.toLowerCase() ?? "";
    if (openers.has(word)) return true;
    if ((word === "a" || word === "an") && /^(?:what|such)$/i.test(tokens[i - 1]?.word ?? "")) return true;
    if (isFunctionWord(word)) return false;
  }
  return false;
}
