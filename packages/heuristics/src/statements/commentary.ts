// Commentary beside news: in a turn whose facts the heuristics have read, the clauses around
// them that ask after the listener ("how's the studio going?"), rate or generalise ("it's so
// fulfilling", "family is everything") or react ("I'm so happy for you") add nothing to keep.
// Alone, the same clause may carry the turn's only news, so there the small-talk gate decides,
// more strictly. A name, a number, a quote or a first-person statement is never commentary.
import { normaliseApostrophes } from "../text/clause-preparer";
import { isCommonWord } from "../lexicons/phatic-lexicon";
import { isQuestion } from "./presupposition-rules";
import { analyse, type Analysis } from "../text/token-analysis";

/** Below the gate's small-talk verdicts: dropping a clause beside facts loses at most that clause. */
export const COMMENTARY_CONFIDENCE = 0.78;

const REACTION =
  /^(?:I|I'm|I am|we're|we are)\s+(?:(?:so|really|very|totally|super|just|also|truly|definitely|always|too)\s+)*(?:happy|glad|excited|stoked|thrilled|proud|grateful|thankful|sorry|lucky|blessed|pumped|impressed|amazed|touched|curious|sure|here|in awe|rooting|cheering|looking forward|with you|on board|up for)\b|^(?:I|we)\s+(?:(?:so|really|totally|just|also|definitely|completely|can)\s+)*(?:agree|hope|think|guess|bet|know|feel|appreciate|understand|see|love that|love how|love it|love this|admire|can't wait|cannot wait|wish)\b/i;

/** Confidence that the clause is commentary, or undefined when it may hold a fact. */
export function commentaryConfidence(clause: string): number | undefined {
  const text = normaliseApostrophes(clause).trim();
  if (/\p{N}|["“”]/u.test(text)) return undefined;
  const a = analyse(text);
  if (namesSomething(a)) return undefined;
  if (isQuestion(text)) return COMMENTARY_CONFIDENCE;
  if (!a.aboutSelf) return COMMENTARY_CONFIDENCE;
  return REACTION.test(text.replace(/^(?:(?:oh|yeah|wow|aw+|and|but|so|well),?\s+)+/i, "")) ? COMMENTARY_CONFIDENCE : undefined;
}

/** A capitalised word, other than "I", names in address and a common word opening the clause, names someone or something. */
function namesSomething(a: Analysis): boolean {
  return a.free.some(
    (t) => /^\p{Lu}/u.test(t.word) && !/^I(?:'[a-z]+)?$/.test(t.word) && (t.start > 0 || !isCommonWord(t.word.replace(/'.*$/, ""))),
  );
}
