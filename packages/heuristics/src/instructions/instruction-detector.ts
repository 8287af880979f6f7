// Instruction language in a user's turn: "Always respond in bullet points", "Never use
// jargon", "From now on, label sarcasm", "Keep responses under three sentences",
// "Please don't …", "Don't ever …". Statements about oneself ("I'll always remember
// that trip", "I never said that") and titles ("Always Sunny …") are not directives.
import type { InstructionCandidate } from "@recall/contracts";
import { normaliseApostrophes } from "../text/clause-preparer";
import { evidenceFor } from "../evidence-builder";
import type { Finding, TurnContext } from "../heuristic-types";
import {
  COMFORT_VERBS,
  FROM_NOW_ON,
  FROM_NOW_ON_TAIL,
  KEEP_LENGTH,
  POLARITY,
  REQUEST_FRAME,
  isDirectivePhrase,
} from "./instruction-grammar";
import { instructionLabel } from "./instruction-label";
import { isCommonWord, isFunctionWord } from "../lexicons/phatic-lexicon";
import type { Sentence } from "../text/sentence-splitter";

interface Directive {
  polarity: "always" | "never" | "keep";
  phrase: string;
}

const LEAD = /^(?:(?:ok|okay|also|and|oh|btw|one more thing|one thing)\b[\s,:;-]*)+/i;

export function detectInstruction(sentence: Sentence, context: TurnContext): Finding | undefined {
  if (!context.fromUser) return undefined;
  const body = normaliseApostrophes(sentence.text)
    .replace(/[\s.!?…]+$/u, "")
    .replace(LEAD, "");
  const directive = readDirective(body);
  if (!directive) return undefined;
  const instruction: InstructionCandidate = {
    label: instructionLabel(directive.polarity, directive.phrase),
    description: describe(directive),
    evidence: evidenceFor(context.text, sentence.start, sentence.end),
    confidence: 0.9,
  };
  return { diff: { instructions: [instruction] }, confidence: 0.9, rule: "instruction", complete: true };
}

function readDirective(body: string): Directive | undefined {
  const standing = FROM_NOW_ON.test(body) || FROM_NOW_ON_TAIL.test(body);
  const core = body.replace(FROM_NOW_ON, "").replace(FROM_NOW_ON_TAIL, "");
  const pleaded = /^please\b/i.test(core);
  const rest = core.replace(REQUEST_FRAME, "");
  if (KEEP_LENGTH.test(rest)) return { polarity: "keep", phrase: rest };
  const polarity = POLARITY.exec(rest);
  if (polarity) return polarised(polarity[1]?.toLowerCase() ?? "", rest.slice(polarity[0].length), pleaded);
  // "From now on, label sarcasm": the standing frame makes a plain imperative a directive.
  if (standing && isImperative(rest)) return { polarity: "always", phrase: rest };
  return undefined;
}

function polarised(word: string, phrase: string, pleaded: boolean): Directive | undefined {
  if (KEEP_LENGTH.test(phrase)) return { polarity: "keep", phrase };
  const never = word !== "always";
  const bareDont = word === "don't" || word === "do not";
  const verb = phrase.split(/\s+/)[0]?.toLowerCase() ?? "";
  // "Please don't tell anyone" is a standing request; "don't" alone needs a directive verb.
  if (bareDont && pleaded && !COMFORT_VERBS.has(verb) && /^[a-z]/.test(verb)) return { polarity: "never", phrase };
  return isDirectivePhrase(phrase) ? { polarity: never ? "never" : "always", phrase } : undefined;
}

/** A bare verb first ("label sarcasm"), not a subject ("there's a chance", "things will change"). */
function isImperative(rest: string): boolean {
  if (isDirectivePhrase(rest)) return true;
  const [first = "", second = ""] = rest.split(/\s+/);
  if (!/^[a-z]+$/.test(first) || isFunctionWord(first) || isCommonWord(first)) return false;
  return !/^(?:will|would|is|are|was|were|has|have|had|can|could|should|must|might|may)$/i.test(second);
}

function describe(directive: Directive): string {
  const phrase = directive.phrase.replace(/^ever\s+/i, "");
  if (directive.polarity === "keep") return capitalise(phrase);
  return `${directive.polarity === "never" ? "Never" : "Always"} ${phrase}`;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
