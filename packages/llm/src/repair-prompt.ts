import { formatIssue, type MalformedOutputError, OutputValidationError } from "./llm-errors";
import type { RepairTurn } from "./model-client";

/** What to tell the model about its unusable answer. */
export function repairTurnFor(failure: MalformedOutputError | OutputValidationError): RepairTurn {
  const problems =
    failure instanceof OutputValidationError
      ? failure.issues.map(formatIssue)
      : [failure.reason === "truncated" ? `${failure.message}; give a shorter answer` : failure.message];
  return { previousOutput: failure.rawText, problems };
}

/** The follow-up user message of a repair attempt. */
export function repairInstruction(repair: RepairTurn, schemaName: string): string {
  return [
    "Your previous answer could not be used:",
    ...repair.problems.map((problem) => `- ${problem}`),
    `Answer again with the complete, corrected ${schemaName} output. Fix every problem listed above.`,
  ].join("\n");
}

/** Providers reject empty assistant turns; the model should still see that it said nothing. */
export function previousOutputText(repair: RepairTurn): string {
  return repair.previousOutput.trim() === "" ? "(no output)" : repair.previousOutput;
}
