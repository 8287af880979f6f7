// The contract between the extract_assertions worker and the staged extractor.
import type { ExtractionDiff, ExtractionGuidance, ExtractionInput, Stage } from "@recall/contracts";
import type { CpuLane } from "./cpu/cpu-pool";

export type { ExtractionGuidance };

export interface StageOutcome {
  diff: ExtractionDiff;
  /** The stage that finished this input. */
  stage: Stage;
  model?: string;
  /** Model tokens this input used (0 for heuristics). */
  tokensUsed: number;
  /** Why the extractor stopped where it did (for the status and the logs). */
  reason: string;
  /**
   * The rules read part of the input and the rest needs a model none is configured for: `diff` holds only what the
   * rules are sure of, and the input waits for an operator's extract-again (work status `awaiting_model`).
   */
  awaitingModel?: boolean;
}

export interface BudgetLimits {
  maxTokens: number;
  maxWallMs: number;
}

/** One extractor per work item: its budget spans every input of that item; `lane` is the CPU pool lane its rules run in. */
export type ExtractorFactory = (limits: BudgetLimits, lane?: CpuLane) => Extractor;

export interface Extractor {
  extract(input: ExtractionInput, guidance: ExtractionGuidance, signal?: AbortSignal): Promise<StageOutcome>;
  /** Model tokens spent so far by every input of the work item, failed calls included: what a failed attempt still cost. */
  readonly tokensUsed: number;
  /** The stage the latest extract() reached: where it finished, or where it failed. */
  readonly stageReached: Stage | undefined;
}
