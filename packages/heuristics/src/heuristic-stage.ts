// The rules as an extraction stage: synchronous and free, so it always runs first.
import type { ExtractionInput, ExtractionStage, StageAttempt } from "@recall/contracts";
import { runHeuristics, type HeuristicOptions } from "./run-heuristics";

export class HeuristicStage implements ExtractionStage {
  readonly name = "heuristic" as const;

  constructor(private readonly options: HeuristicOptions) {}

  extract(input: ExtractionInput): Promise<StageAttempt> {
    const outcome = runHeuristics(input, this.options);
    const diff = outcome.finished ? outcome.diff : outcome.partial;
    return Promise.resolve({ diff, finished: outcome.finished, reason: outcome.reason });
  }
}
