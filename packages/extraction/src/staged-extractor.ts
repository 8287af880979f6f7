// The staged extractor: heuristics first; the fast model where the heuristics are not
// confident; the strong model when the fast answer fails validation, contradicts
// itself, or the text names a reference that fits two known entities.
import type { Config } from "@recall/config";
import { Budget, NoProviderError, OutputValidationError, createModelClient, structuredCall, type ModelClient } from "@recall/llm";
import type { ExtractionDiff, ExtractionInput } from "./diff";
import type { BudgetLimits, ExtractionGuidance, Extractor, ExtractorFactory, StageOutcome } from "./extractor";
import { runHeuristics } from "./heuristics";
import { ModelDiff, fromModelDiff } from "./model-output";
import { systemPrompt, userPrompt } from "./model-prompt";

const MAX_OUTPUT_TOKENS = 4_096;

export interface StagedExtractorOptions {
  fast?: ModelClient;
  strong?: ModelClient;
  threshold: number;
  limits: BudgetLimits;
}

export class StagedExtractor implements Extractor {
  readonly budget: Budget;

  constructor(private readonly options: StagedExtractorOptions) {
    this.budget = new Budget({ maxTokens: options.limits.maxTokens, maxWallMs: options.limits.maxWallMs });
  }

  async extract(input: ExtractionInput, guidance: ExtractionGuidance, signal?: AbortSignal): Promise<StageOutcome> {
    const heuristic = runHeuristics(input, { threshold: this.options.threshold });
    if (heuristic.finished) return { diff: heuristic.diff, stage: "heuristic", tokensUsed: 0, reason: heuristic.reason };
    const { fast, strong } = this.options;
    const ambiguous = ambiguousReference(input);
    if (ambiguous && strong) return this.modelStage(strong, "strong", input, guidance, signal, `ambiguous reference: ${ambiguous}`);
    const first = fast ?? strong;
    if (!first) {
      throw new NoProviderError(
        "fast",
        ["RECALL_FAST_MODEL"],
        `this input needs a model (${heuristic.reason}); set RECALL_FAST_MODEL (and RECALL_STRONG_MODEL) to provider:model with the provider's key (ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENAI_BASE_URL), then retry the work item`,
      );
    }
    const firstStage = fast ? "fast" : "strong";
    try {
      const outcome = await this.modelStage(first, firstStage, input, guidance, signal, heuristic.reason);
      const contradiction = selfContradiction(outcome.diff);
      if (contradiction && strong && first !== strong)
        return this.escalate(outcome, strong, input, guidance, signal, `contradiction: ${contradiction}`);
      return outcome;
    } catch (err) {
      if (!(err instanceof OutputValidationError) || !strong || first === strong) throw err;
      return this.modelStage(strong, "strong", input, guidance, signal, "fast model output failed validation");
    }
  }

  private async escalate(
    previous: StageOutcome,
    strong: ModelClient,
    input: ExtractionInput,
    guidance: ExtractionGuidance,
    signal: AbortSignal | undefined,
    reason: string,
  ): Promise<StageOutcome> {
    const outcome = await this.modelStage(strong, "strong", input, guidance, signal, reason);
    return { ...outcome, tokensUsed: outcome.tokensUsed + previous.tokensUsed };
  }

  private async modelStage(
    client: ModelClient,
    stage: "fast" | "strong",
    input: ExtractionInput,
    guidance: ExtractionGuidance,
    signal: AbortSignal | undefined,
    reason: string,
  ): Promise<StageOutcome> {
    const before = this.budget.used.totalTokens;
    const result = await structuredCall(
      client,
      {
        system: systemPrompt(guidance),
        user: userPrompt(input),
        schema: ModelDiff,
        schemaName: "extraction_diff",
        maxTokens: MAX_OUTPUT_TOKENS,
        signal,
      },
      { budget: this.budget },
    );
    return {
      diff: fromModelDiff(result.value),
      stage,
      model: `${client.provider}:${result.model}`,
      tokensUsed: this.budget.used.totalTokens - before,
      reason,
    };
  }
}

/** A name in the text that fits two or more known entities (e.g. two people called Jordan). */
export function ambiguousReference(input: ExtractionInput): string | undefined {
  const byFirstName = new Map<string, Set<string>>();
  for (const e of input.knownEntities) {
    const first = e.name.split(/\s+/)[0]!.toLowerCase();
    if (!byFirstName.has(first)) byFirstName.set(first, new Set());
    byFirstName.get(first)!.add(e.name.toLowerCase());
  }
  const words = new Set(input.text.toLowerCase().match(/\p{L}+/gu) ?? []);
  for (const [first, names] of byFirstName) {
    if (names.size > 1 && words.has(first) && ![...names].some((n) => input.text.toLowerCase().includes(n) && n !== first)) return first;
  }
  return undefined;
}

/** Two different values for the same entity and attribute key within one input. */
export function selfContradiction(diff: ExtractionDiff): string | undefined {
  const seen = new Map<string, string>();
  for (const a of diff.attributes) {
    const key = `${a.entity.toLowerCase()}|${a.key}`;
    const prior = seen.get(key);
    if (prior !== undefined && prior !== a.value.toLowerCase()) return `${a.entity}.${a.key} is both "${prior}" and "${a.value}"`;
    seen.set(key, a.value.toLowerCase());
  }
  return undefined;
}

/** One extractor per work item, so the budget spans all of that item's inputs. */
export function createStagedExtractorFactory(config: Config): ExtractorFactory {
  return (limits) =>
    new StagedExtractor({
      fast: createModelClient(config, "fast"),
      strong: createModelClient(config, "strong"),
      threshold: config.RECALL_HEURISTIC_CONFIDENCE,
      limits,
    });
}
