// The small-talk gate: a turn whose every sentence is a greeting, thanks, a reaction, an
// encouragement or an open question carries nothing durable and finishes with an empty
// diff. A concrete noun, a name, a number, a date or shared media keeps the turn open.
import { isAbstractWord, isQuestionWord } from "./abstract-lexicon";
import { normaliseApostrophes } from "./clause-preparer";
import { INTERJECTIONS, PHATIC_PHRASES, isCommonWord, isFunctionWord, isPhaticWord } from "./phatic-lexicon";
import { findVocatives } from "./vocative-finder";

export interface PhaticVerdict {
  phatic: boolean;
  confidence: number;
  /** Words that carry content, when not phatic. */
  content: string[];
}

export interface Token {
  word: string;
  start: number;
  end: number;
}

interface Analysis {
  text: string;
  tokens: Token[];
  /** Tokens that are neither phatic, nor part of a phatic phrase, nor a name in address. */
  open: Token[];
  /** The speaker talks about themself outside set phrases ("I", "my", "me", "we"). */
  aboutSelf: boolean;
}

const CONVERSATION = new Set(["hearing", "seeing", "talking", "chatting", "catching", "knowing", "sharing"]);
const TOKEN = /[\p{L}\p{N}]+(?:'[\p{L}]+)*/gu;
const FIRST_PERSON = new Set(["i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "i'm", "i've", "i'll", "i'd", "we're", "we've", "we'll", "we'd"]);
const SHARING = /\b(?:here's|here is|here are|check (?:this|it|these|that) out|check out|take a look|have a look|look at (?:this|these)|(?:this|these|that) (?:is|are) (?:a |my |our |the )?(?:pics?|photos?|pictures?|shots?)|(?:a|my|our) (?:pics?|photos?|pictures?|snaps?|selfies?|videos?) (?:of|from))\b/i;

export function phaticVerdict(sentence: string): PhaticVerdict {
  const text = normaliseApostrophes(sentence);
  if (/\p{N}/u.test(text) || SHARING.test(text)) return durable([text]);
  const a = analyse(text);
  if (statesPreference(a)) return durable([text]);
  if (a.open.length === 0) return { phatic: true, confidence: interjectionsOnly(a) ? 0.95 : 0.85, content: [] };
  // Encouragement and values talk ("making a difference is key") names nothing particular;
  // about oneself, the same words are a value or a state worth keeping ("it brings me joy").
  const content = a.aboutSelf ? a.open : a.open.filter((t) => !isAbstractWord(t.word));
  // Least sure: people do state opinions worth keeping in these words.
  if (content.length === 0) return { phatic: true, confidence: 0.72, content: [] };
  if (!a.aboutSelf && !isQuestion(a.text) && isReaction(a, content)) return { phatic: true, confidence: 0.8, content: [] };
  if (isOpenQuestion(a, content)) return { phatic: true, confidence: 0.8, content: [] };
  return durable(content.map((t) => t.word));
}

/** "I love being around friends", "we like hiking": a taste, unless its object is the conversation ("I love that"). */
function statesPreference(a: Analysis): boolean {
  return a.tokens.some((t, i) => {
    if (!/^(?:i|we)$/i.test(t.word)) return false;
    const verb = a.tokens[i + 1]?.word.toLowerCase() ?? "";
    const object = a.tokens[i + 2]?.word.toLowerCase() ?? "";
    return /^(?:love|like|enjoy|hate|prefer|adore)$/.test(verb) && object !== "" && !isFunctionWord(object) && !CONVERSATION.has(object);
  });
}

function durable(content: string[]): PhaticVerdict {
  return { phatic: false, confidence: 0.9, content };
}

function analyse(text: string): Analysis {
  const tokens = [...text.matchAll(TOKEN)].map((m) => ({ word: m[0], start: m.index ?? 0, end: (m.index ?? 0) + m[0].length }));
  const vocatives = findVocatives(text, tokens);
  const phrased = phraseCovered(text.toLowerCase());
  const free = tokens.filter((t, i) => !vocatives.has(i) && !phrased[t.start]);
  return {
    text,
    tokens,
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

function interjectionsOnly(a: Analysis): boolean {
  return a.tokens.every((t) => !a.open.includes(t) && (INTERJECTIONS.has(t.word.toLowerCase()) || !a.aboutSelf));
}

// Distal and second-person pointers: "that dress", "your studio". "This"/"these" more often
// point at the speaker's own things ("these family times") and so are left out.
const POINTING = new Set(["that", "those", "your", "ur", "such"]);
const PREPOSITIONS = new Set(["at", "in", "to", "with", "for", "on", "from", "about", "into", "of", "by", "during", "after", "before"]);
const DEFINITE = new Set(["the", "this", "that", "these", "those", "your", "his", "her", "their", "its", "ur"]);

function isQuestion(text: string): boolean {
  return /\?["')\]\s]*$/.test(text);
}

/**
 * "Wow, that agency looks great!", "Your group sounds awesome": praise for something the
 * other person brought up adds nothing they have not said. Every content word must sit in
 * a noun phrase opened by a pointing word, and none may be a name.
 */
function isReaction(a: Analysis, content: Token[]): boolean {
  return content.every((t) => !isName(t, a) && openedBy(a.tokens, t, POINTING) && !afterPreposition(a.tokens, t));
}

/** "What kinda jobs are you thinking of?" asks without telling: no first person, no name, no presupposed thing. */
function isOpenQuestion(a: Analysis, content: Token[]): boolean {
  if (!isQuestion(a.text) || a.aboutSelf) return false;
  const asked = content.filter((t) => !isQuestionWord(t.word));
  if (asked.length > 2 || asked.some((t) => isName(t, a))) return false;
  // "How's it going with yoga?" presupposes the yoga as much as "how's the studio?" does.
  return !asked.some((t) => openedBy(a.tokens, t, DEFINITE) || presupposedByPreposition(a.tokens, t));
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

/** "at your dance studio" places someone somewhere; only a bare "your studio" is mere praise. */
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
