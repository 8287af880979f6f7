// Revocation language: "stop using bullet points", "you don't need to … anymore",
// "no need to … any more", "forget what I said about …". The revoked instruction is
// the active one sharing most words with what the user asks to stop.
import type { ActiveInstruction, RevocationCandidate } from "@recall/contracts";
import { normaliseApostrophes } from "../text/clause-preparer";
import { evidenceFor } from "../evidence-builder";
import type { Finding, TurnContext } from "../heuristic-types";
import type { Sentence } from "../text/sentence-splitter";

const PATTERNS: RegExp[] = [
  /^(?:please\s+)?(?:(?:can|could|would) you\s+(?:please\s+)?)?(?:stop|quit)\s+(\w+ing\b.*)$/i,
  /^you\s+can\s+stop\s+(\w+ing\b.*)$/i,
  /^(?:you\s+)?(?:don't|do not)\s+(?:need|have)\s+to\s+(.+?)\s+any\s?more$/i,
  /^you\s+no\s+longer\s+(?:need|have)\s+to\s+(.+)$/i,
  /^(?:there's\s+|there is\s+)?no\s+(?:need|reason)\s+to\s+(.+?)\s+any\s?more$/i,
  /^(?:please\s+)?(?:don't|do not)\s+(.+?)\s+any\s?more$/i,
  /^(?:please\s+)?forget\s+(?:what|everything)\s+I\s+(?:said|told you|asked)\s+about\s+(.+)$/i,
  /^(?:please\s+)?(?:ignore|disregard|drop|cancel)\s+(?:my|the|that)\s+(?:earlier\s+|previous\s+|last\s+|old\s+)?(?:instruction|request|rule|preference)\s+(?:about|on|regarding|to)\s+(.+)$/i,
];

const STOPWORDS = new Set(
  "a an the in on at to of for with and or my me your you i it that this those these any more anymore please always never use using response responses answer answers reply replies".split(
    " ",
  ),
);

export function detectRevocation(sentence: Sentence, context: TurnContext): Finding | undefined {
  if (!context.fromUser) return undefined;
  const body = normaliseApostrophes(sentence.text)
    .replace(/[\s.!?…]+$/u, "")
    .replace(/^(?:ok|okay|also|oh|and|actually)\b[\s,]*/i, "");
  const target = PATTERNS.map((p) => p.exec(body)?.[1]).find((t) => t !== undefined);
  if (target === undefined) return undefined;
  const match = bestInstruction(target, context.activeInstructions);
  // Without an active instruction to name, the words may be a revocation or just chat.
  if (!match) return { diff: {}, confidence: 0.5, rule: "revocation", complete: false, gap: `no active instruction matches "${target}"` };
  const revocation: RevocationCandidate = {
    instruction_id: match.id,
    matches: match.label,
    evidence: evidenceFor(context.text, sentence.start, sentence.end),
    confidence: 0.9,
  };
  return { diff: { revocations: [revocation] }, confidence: 0.9, rule: "revocation", complete: true };
}

/** The active instruction sharing most content words with the target, if any share one. */
export function bestInstruction(target: string, active: ActiveInstruction[]): ActiveInstruction | undefined {
  const wanted = contentStems(target);
  let best: { instruction: ActiveInstruction; score: number } | undefined;
  for (const instruction of active) {
    const have = contentStems(`${instruction.label} ${instruction.description}`);
    const score = [...wanted].filter((w) => have.has(w)).length;
    if (score > 0 && (!best || score > best.score)) best = { instruction, score };
  }
  return best?.instruction;
}

function contentStems(text: string): Set<string> {
  const words = text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 1 && !STOPWORDS.has(w));
  return new Set(words.map(stem));
}

function stem(word: string): string {
  return word.replace(/(?:ing|ed|es|s)$/, "").replace(/(.)\1$/, "$1") || word;
}
