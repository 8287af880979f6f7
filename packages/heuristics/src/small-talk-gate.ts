// The small-talk gate: a turn whose every sentence is a greeting, thanks, a reaction, an
// encouragement or an open question carries nothing durable and finishes with an empty
// diff. A concrete noun, a name, a number, a date or shared media keeps the turn open.
// Confidence falls with how much the verdict leans on interpretation.
import { isAbstractWord } from "./lexicons/abstract-lexicon";
import { normaliseApostrophes } from "./text/clause-preparer";
import { INTERJECTIONS, isFunctionWord } from "./lexicons/phatic-lexicon";
import { isEncouragement, isEvaluation, isOpenQuestion, isReaction } from "./statements/presupposition-rules";
import { analyse, type Analysis } from "./text/token-analysis";

export interface PhaticVerdict {
  phatic: boolean;
  confidence: number;
  /** Words that carry content, when not phatic. */
  content: string[];
}

const CONVERSATION = new Set(["hearing", "seeing", "talking", "chatting", "catching", "knowing", "sharing"]);
const SHARING =
  /\b(?:here's|here is|here are|check (?:this|it|these|that) out|check out|take a look|have a look|look at (?:this|these)|(?:this|these|that) (?:is|are) (?:a |my |our |the )?(?:pics?|photos?|pictures?|shots?)|(?:a|my|our) (?:pics?|photos?|pictures?|snaps?|selfies?|videos?) (?:of|from))\b/i;

export function phaticVerdict(sentence: string): PhaticVerdict {
  const text = normaliseApostrophes(sentence);
  // Numbers and shared media carry content even in a cheerful sentence.
  if (/\p{N}/u.test(text) || SHARING.test(text)) return durable([text]);
  const a = analyse(text);
  if (statesPreference(a)) return durable([text]);
  if (a.open.length === 0) return phatic(a.free.every((t) => INTERJECTIONS.has(t.word.toLowerCase())) ? 0.95 : 0.85);
  // Encouragement and values talk ("making a difference is key") names nothing particular;
  // about oneself, the same words are a value or a state worth keeping ("it brings me joy").
  const content = a.aboutSelf ? a.open : a.open.filter((t) => !isAbstractWord(t.word));
  // Least sure of these: people do state opinions worth keeping in such words; a pronoun's
  // evaluation ("it was so relaxing") only rates what was just said.
  if (content.length === 0) return phatic(isEvaluation(a) || isEncouragement(a) ? 0.8 : 0.72);
  if (isReaction(a, content) || isOpenQuestion(a, content)) return phatic(0.8);
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

function phatic(confidence: number): PhaticVerdict {
  return { phatic: true, confidence, content: [] };
}

function durable(content: string[]): PhaticVerdict {
  return { phatic: false, confidence: 0.9, content };
}
