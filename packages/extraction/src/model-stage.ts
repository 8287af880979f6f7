// A model tier as an extraction stage: one structured call (with at most one repair) under
// the work item's budget. It answers with a diff or throws; it never answers "unsure".
import { Budget, NoProviderError, structuredCall, type ModelClient } from "@recall/llm";
import type { ExtractionGuidance, ExtractionInput, ExtractionStage, StageAttempt, StageCall } from "@recall/contracts";
import { ModelDiff, fromModelDiff } from "./model-output";
import { systemPrompt, userPrompt } from "./model-prompt";

const MAX_OUTPUT_TOKENS = 4_096;

export type ModelStageName = "fast" | "strong";

export class ModelStage implements ExtractionStage {
  constructor(
    readonly name: ModelStageName,
    private readonly client: ModelClient,
    private readonly budget: Budget,
  ) {}

  async extract(input: ExtractionInput, guidance: ExtractionGuidance, call: StageCall): Promise<StageAttempt> {
    const result = await structuredCall(
      this.client,
      {
        system: systemPrompt(guidance),
        user: userPrompt(input, call.escalation?.note),
        schema: ModelDiff,
        schemaName: "extraction_diff",
        // Never ask for more output than the budget has left.
        maxTokens: Math.max(1, Math.min(MAX_OUTPUT_TOKENS, this.budget.remainingTokens)),
        signal: call.signal,
      },
      { budget: this.budget, stage: this.name },
    );
    const repaired = result.attempts === 2 ? " (after one repair)" : "";
    return {
      diff: fromModelDiff(result.value),
      finished: true,
      model: `${this.client.provider}:${result.model}`,
      reason: (call.escalation?.reason ?? `read by the ${this.name} model`) + repaired,
    };
  }
}

/**
 * A tier whose model is set but cannot be built (a missing key). It takes its place in the
 * order so the error is raised only when an input needs that tier.
 */
export class UnavailableModelStage implements ExtractionStage {
  constructor(
    readonly name: ModelStageName,
    private readonly error: NoProviderError,
  ) {}

  extract(): Promise<StageAttempt> {
    return Promise.reject(this.error);
  }
}
