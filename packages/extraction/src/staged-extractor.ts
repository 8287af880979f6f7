// The staged extractor: heuristics first; the fast model where the heuristics are not
// confident; the strong model when the fast answer fails validation, contradicts
// itself, or the text names a reference that fits two known entities.
import type { Config } from "@recall/config";
import {
  Budget,
  NoProviderError,
  OutputValidationError,
  createModelClient,
  structuredCall,
  type ModelClient,
  type ModelTier,
} from "@recall/llm";
import { isEmptyDiff, type ExtractionDiff, type ExtractionInput, type Stage } from "./diff";
import type { BudgetLimits, ExtractionGuidance, Extractor, ExtractorFactory, StageOutcome } from "./extractor";
import { runHeuristics } from "./heuristics";
import { ModelDiff, fromModelDiff } from "./model-output";
import { systemPrompt, userPrompt } from "./model-prompt";

const MAX_OUTPUT_TOKENS = 4_096;

export interface StagedExtractorOptions {
  fast?: ModelClient;
  strong?: ModelClient;
  /**
   * Tiers whose model is set but cannot be built (a missing key). Raised only when that
   * tier is needed, so heuristics keep finishing what they can on a half-configured service.
   */
  unavailable?: Partial<Record<ModelTier, NoProviderError>>;
  threshold: number;
  limits: BudgetLimits;
}

/** Tokens are counted per input by extract(), across every stage the input went through. */
type ModelOutcome = Omit<StageOutcome, "tokensUsed">;

interface Call {
  input: ExtractionInput;
  guidance: ExtractionGuidance;
  signal: AbortSignal | undefined;
}

export class StagedExtractor implements Extractor {
  readonly budget: Budget;
  #stageReached: Stage | undefined;

  constructor(private readonly options: StagedExtractorOptions) {
    this.budget = new Budget({ maxTokens: options.limits.maxTokens, maxWallMs: options.limits.maxWallMs });
  }

  get tokensUsed(): number {
    return this.budget.used.totalTokens;
  }

  get stageReached(): Stage | undefined {
    return this.#stageReached;
  }

  async extract(input: ExtractionInput, guidance: ExtractionGuidance, signal?: AbortSignal): Promise<StageOutcome> {
    const before = this.tokensUsed;
    this.#stageReached = "heuristic";
    const heuristic = runHeuristics(input, { threshold: this.options.threshold });
    const ambiguous = ambiguousReference(input);
    // Rules cannot tell which of two known entities a name means, so facts they read about it go to a model.
    if (heuristic.finished && !(ambiguous && !isEmptyDiff(heuristic.diff))) {
      return { diff: heuristic.diff, stage: "heuristic", tokensUsed: 0, reason: heuristic.reason };
    }
    const why = heuristic.finished ? `ambiguous reference "${ambiguous}"` : heuristic.reason;
    const outcome = await this.modelStages({ input, guidance, signal }, why, ambiguous);
    // Every call of this input counts, including a fast answer that was escalated.
    return { ...outcome, tokensUsed: this.tokensUsed - before };
  }

  private async modelStages(call: Call, why: string, ambiguous: string | undefined): Promise<ModelOutcome> {
    const { fast, strong, unavailable } = this.options;
    const strongSet = strong !== undefined || unavailable?.strong !== undefined;
    if (ambiguous && strongSet) {
      return this.strongStage(call, `ambiguous reference "${ambiguous}": two known entities fit`, {
        note: `"${ambiguous}" fits more than one known entity; attach facts to one only when the text makes clear which, else record an uncertainty`,
      });
    }
    if (!fast) {
      // A strong-only service starts there; a fast model that is set but broken is reported, not skipped.
      if (strong && !unavailable?.fast) return this.modelStage(strong, "strong", call, why);
      throw this.noProvider(why);
    }
    let outcome: ModelOutcome;
    try {
      outcome = await this.modelStage(fast, "fast", call, why);
    } catch (err) {
      if (!(err instanceof OutputValidationError)) throw err;
      const reason = `fast model output failed validation after one repair (${clip(err.message)})`;
      if (strongSet) return this.strongStage(call, reason, { note: `a first reading failed: ${reason}` });
      throw err;
    }
    const contradiction = selfContradiction(outcome.diff);
    if (!contradiction) return outcome;
    const reason = `fast answer contradicts itself: ${contradiction}`;
    if (strongSet) return this.strongStage(call, reason, { note: `a first reading failed: ${reason}` });
    return { ...outcome, reason: `${reason}; no strong model configured, keeping the fast answer` };
  }

  /** A strong model that is set but cannot be built is reported rather than quietly settling for less. */
  private async strongStage(call: Call, reason: string, prompt: { note: string }): Promise<ModelOutcome> {
    const { strong, unavailable } = this.options;
    if (strong) return this.modelStage(strong, "strong", call, reason, prompt);
    this.#stageReached = "strong";
    throw unavailable!.strong!;
  }

  private async modelStage(
    client: ModelClient,
    stage: "fast" | "strong",
    call: Call,
    reason: string,
    { note }: { note?: string } = {},
  ): Promise<ModelOutcome> {
    this.#stageReached = stage;
    const result = await structuredCall(
      client,
      {
        system: systemPrompt(call.guidance),
        user: userPrompt(call.input, note),
        schema: ModelDiff,
        schemaName: "extraction_diff",
        // Never ask for more output than the budget has left.
        maxTokens: Math.max(1, Math.min(MAX_OUTPUT_TOKENS, this.budget.remainingTokens)),
        signal: call.signal,
      },
      { budget: this.budget, stage },
    );
    const repaired = result.attempts === 2 ? " (after one repair)" : "";
    return { diff: fromModelDiff(result.value), stage, model: `${client.provider}:${result.model}`, reason: reason + repaired };
  }

  private noProvider(why: string): NoProviderError {
    this.#stageReached = "fast";
    return (
      this.options.unavailable?.fast ??
      this.options.unavailable?.strong ??
      new NoProviderError(
        "fast",
        ["RECALL_FAST_MODEL"],
        `this input needs a model (${why}); set RECALL_FAST_MODEL (and optionally RECALL_STRONG_MODEL) to provider:model ` +
          "with the provider's key (anthropic: ANTHROPIC_API_KEY; openai: OPENAI_API_KEY; openai-compatible: OPENAI_BASE_URL), " +
          "then retry the work item",
      )
    );
  }
}

/** Validation messages list every issue; a reason (stored, logged, shown to the strong model) needs the gist. */
function clip(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * A name in the text that fits two or more known entities ("Jordan" when Jordan Lee and
 * Jordan Smith are both known) and that no fuller name in the same text settles.
 */
export function ambiguousReference(input: ExtractionInput): string | undefined {
  for (const [form, entities] of referenceForms(input)) {
    if (entities.size < 2 || !mentions(input.text, form)) continue;
    const settled = [...entities.values()].some((name) => name.toLowerCase() !== form.toLowerCase() && mentions(input.text, name));
    if (!settled) return form;
  }
  return undefined;
}

/** Each way a known entity may be referred to (name, first name, aliases) → the entities it fits, by key → full name. */
function referenceForms(input: ExtractionInput): Map<string, Map<string, string>> {
  const forms = new Map<string, Map<string, string>>();
  for (const entity of input.knownEntities) {
    // Entities found earlier in the same document carry no id yet; name and type identify them.
    const key = entity.id || `${entity.name.toLowerCase()}|${entity.type.toLowerCase()}`;
    const names = [entity.name, entity.name.split(/\s+/)[0] ?? "", ...entity.aliases].map((n) => n.trim()).filter((n) => n.length > 1);
    for (const form of new Set(names)) {
      if (!forms.has(form)) forms.set(form, new Map());
      forms.get(form)!.set(key, entity.name);
    }
  }
  return forms;
}

/** Word-bounded and case-aware like the known-entity matcher: "Will" the person is not "will" the verb. */
function mentions(text: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const flags = name === name.toLowerCase() ? "iu" : "u";
  const bounded = (n: string) => new RegExp(`(?<![\\p{L}\\p{N}_])${n}(?![\\p{L}\\p{N}_])`, flags);
  return bounded(escaped).test(text) || (flags === "u" && bounded(escaped.toUpperCase()).test(text));
}

/** Two different values for the same entity and attribute key within one answer. */
export function selfContradiction(diff: ExtractionDiff): string | undefined {
  const seen = new Map<string, string>();
  for (const a of diff.attributes) {
    const key = `${a.entity.trim().toLowerCase()}|${a.key}`;
    const value = a.value.trim().toLowerCase();
    const prior = seen.get(key);
    if (prior !== undefined && prior !== value) return `${a.entity}.${a.key} is both "${prior}" and "${a.value}"`;
    seen.set(key, value);
  }
  return undefined;
}

/** One extractor per work item, so the budget spans all of that item's inputs. */
export function createStagedExtractorFactory(config: Config): ExtractorFactory {
  return (limits) => new StagedExtractor({ ...modelClients(config), threshold: config.RECALL_HEURISTIC_CONFIDENCE, limits });
}

function modelClients(config: Config): Pick<StagedExtractorOptions, "fast" | "strong" | "unavailable"> {
  const clients: Pick<StagedExtractorOptions, "fast" | "strong"> = {};
  const unavailable: Partial<Record<ModelTier, NoProviderError>> = {};
  for (const tier of ["fast", "strong"] as const) {
    try {
      clients[tier] = createModelClient(config, tier);
    } catch (err) {
      if (!(err instanceof NoProviderError)) throw err;
      unavailable[tier] = err;
    }
  }
  return { ...clients, unavailable };
}
