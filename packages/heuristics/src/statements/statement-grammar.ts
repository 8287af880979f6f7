// Regular-expression grammar for the simple statements heuristics can read without a
// model: introductions, roles, employers, homes, emails and "X is the Y of Z".
import type { FactAspect } from "../time/temporal-resolver";

const WORD = String.raw`\p{Lu}[\p{L}\p{N}'&.-]*`;
export const NAME = String.raw`\p{Lu}[\p{L}'-]+(?:\s+\p{Lu}[\p{L}'-]+){0,2}`;
export const PROPER = String.raw`${WORD}(?:\s+(?:(?:of|and|&|de|du|la|the|for)\s+)?${WORD}){0,4}`;
const ROLE = String.raw`[\p{L}-]+(?:\s+[\p{L}-]+){0,5}?`;
const ARTICLE = String.raw`(?:(?:the|a|an|our|my)\s+)?`;
const ORG_TAIL = String.raw`(?:\s+(?:at|of|for|with)\s+(?<org>${PROPER}))?`;
const NOW = String.raw`(?:(?:now|currently|still|also)\s+)?`;
const I_AM = String.raw`(?:I'm|I am)`;
const I_HAVE = String.raw`I(?:'ve| have)\s+(?:been\s+)?`;

export type StatementKind = "intro" | "role" | "title" | "works_at" | "lives_in" | "email" | "third_party";

export interface StatementRule {
  kind: StatementKind;
  pattern: RegExp;
  aspect: FactAspect;
}

function rule(kind: StatementKind, source: string, aspect: FactAspect = "state"): StatementRule {
  return { kind, pattern: new RegExp(`^${source}$`, "u"), aspect };
}

/** Tried in order on a clause stripped of discourse markers, time phrases and final punctuation. */
export const STATEMENT_RULES: StatementRule[] = [
  rule("intro", String.raw`(?:${I_AM}|[Mm]y name is|[Mm]y name's)\s+(?<name>${NAME})(?:\s*,\s*${ARTICLE}(?<role>${ROLE})${ORG_TAIL})?`),
  rule("title", String.raw`[Mm]y (?:job )?(?<key>title|role|position) is ${NOW}${ARTICLE}(?<role>${ROLE})${ORG_TAIL}`),
  rule("role", String.raw`${I_AM}\s+${NOW}${ARTICLE}(?<role>${ROLE})${ORG_TAIL}`),
  rule("role", String.raw`I\s+${NOW}work\s+as\s+${ARTICLE}(?<role>${ROLE})${ORG_TAIL}`),
  rule(
    "works_at",
    String.raw`(?:I|${I_AM})\s+${NOW}(?:work|working|employed)\s+(?:at|for|with)\s+(?<org>${PROPER})(?:\s+as\s+${ARTICLE}(?<role>${ROLE}))?`,
  ),
  rule("works_at", String.raw`${I_HAVE}(?:working|worked)\s+(?:at|for)\s+(?<org>${PROPER})`),
  rule("works_at", String.raw`I\s+(?:worked|used to work)\s+(?:at|for)\s+(?<org>${PROPER})`, "past_state"),
  rule("works_at", String.raw`(?:I|I've|I have)\s+(?:just\s+)?joined\s+(?<org>${PROPER})`, "change"),
  rule("works_at", String.raw`[Mm]y (?:employer|company) is ${NOW}(?<org>${PROPER})`),
  rule("lives_in", String.raw`(?:I|${I_AM})\s+${NOW}(?:live|living|based|residing|reside)\s+in\s+(?<place>${PROPER})`),
  rule("lives_in", String.raw`${I_HAVE}(?:living|lived)\s+in\s+(?<place>${PROPER})`),
  rule("lives_in", String.raw`I\s+(?:lived|used to live)\s+in\s+(?<place>${PROPER})`, "past_state"),
  rule("lives_in", String.raw`(?:I|I've|I have)\s+(?:just\s+)?(?:moved|relocated)\s+to\s+(?<place>${PROPER})`, "change"),
  rule("email", String.raw`[Mm]y (?:e-?mail|e-?mail address) is ${NOW}(?<email>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)`),
  rule("third_party", String.raw`(?<name>${NAME})\s+is\s+${NOW}(?:the|a|an|our|my)\s+(?<role>${ROLE})${ORG_TAIL}`),
];

/** Leading words that mark a correction of something said or known before. */
export const CORRECTION_MARKER =
  /^(?:(?:actually|correction|update|sorry|oops|no|wait|i mean|i meant|to clarify|scratch that)\b[\s,:;!-]*)+/i;

/** Greetings and fillers before the statement itself ("Hi, I'm Alice"). */
export const DISCOURSE_MARKER = /^(?:(?:hi|hello|hey|so|well|oh|also|and|btw|by the way|ok|okay)(?:\s+there)?\b[\s,:;!-]*)+/i;
