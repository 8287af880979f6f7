// One interface for every stage that reads an input: the rules and each model tier alike,
// so the staged extractor is a loop over stages and the escalation rules sit in one place.
import type { ExtractionDiff, ExtractionInput, Stage } from "./diff";

export interface ExtractionGuidance {
  skillId: string;
  /** The skill's markdown guidance, given to model stages. */
  skillBody: string;
  purpose?: string;
}

/** Why an earlier stage handed the input on, and what the next reader should be told. */
export interface Escalation {
  reason: string;
  /** A line for a model's prompt (a failed first reading, an ambiguous name). */
  note?: string;
}

export interface StageCall {
  signal?: AbortSignal;
  /** Set when an earlier stage handed the input on. */
  escalation?: Escalation;
}

export interface StageAttempt {
  diff: ExtractionDiff;
  /**
   * False when the stage read what it could but is not confident in all of it (the rules
   * left a sentence unread); a model stage answers true or throws.
   */
  finished: boolean;
  reason: string;
  /** provider:model for a model stage. */
  model?: string;
}

export interface ExtractionStage {
  readonly name: Stage;
  extract(input: ExtractionInput, guidance: ExtractionGuidance, call: StageCall): Promise<StageAttempt>;
}
