// Reads one sentence with the heuristic detectors: a revocation or an instruction takes
// the whole sentence; otherwise each clause must be a statement the grammar reads.
import { prepareClause } from "./clause-preparer";
import type { Finding, TurnContext } from "../heuristic-types";
import { detectInstruction } from "../instructions/instruction-detector";
import { detectOpenStatement } from "../statements/open-reader";
import { detectPersonal } from "../personal/personal-detector";
import { detectRevocation } from "../instructions/revocation-detector";
import { splitClauses, type Sentence } from "./sentence-splitter";
import { phaticVerdict } from "../small-talk-gate";
import { detectStatement } from "../statements/statement-detector";

export interface SentenceReading {
  sentence: Sentence;
  findings: Finding[];
  /** Parts no rule could read; non-empty means the input needs a model. */
  unread: Sentence[];
  /** Confidence of phatic parts, which add nothing to the diff. */
  phaticConfidence?: number;
}

export function readSentence(sentence: Sentence, context: TurnContext, isTurn: boolean): SentenceReading {
  const whole = detectRevocation(sentence, context) ?? detectInstruction(sentence, context);
  if (whole) return { sentence, findings: [whole], unread: [] };
  const findings: Finding[] = [];
  const unread: Sentence[] = [];
  let phaticConfidence: number | undefined;
  for (const clause of splitClauses(sentence)) {
    // Time phrases are parsed once per clause, for both grammars.
    const prepared = prepareClause(clause.text, context.referenceTime);
    const finding =
      detectStatement(clause, context, prepared) ??
      detectPersonal(clause, context, prepared) ??
      detectOpenStatement(clause, context, prepared);
    if (finding) {
      findings.push(finding);
      continue;
    }
    const verdict = isTurn ? phaticVerdict(clause.text) : undefined;
    if (verdict?.phatic) phaticConfidence = Math.min(phaticConfidence ?? 1, verdict.confidence);
    else unread.push(clause);
  }
  return { sentence, findings, unread, phaticConfidence };
}
