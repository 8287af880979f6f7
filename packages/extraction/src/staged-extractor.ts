// The staged extractor: a loop over stages (heuristics, then the fast model, then the strong
// one) that stops at the first stage whose answer it accepts. The rules for handing an input
// on sit in handOn()/handOnError(): the rules are not confident; two known entities fit a
// name; the fast answer fails validation or contradicts itself.
import {
  Budget,
  CallLimit,
  NoProviderError,
  OutputValidationError,
  createModelClient,
  limitedClient,
  type ModelClient,
  type ModelTier,
  type ProviderOptions,
} from "@recall/llm";
import {
  isEmptyDiff,
  type Escalation,
  type ExtractionDiff,
  type ExtractionInput,
  type ExtractionStage,
  type Stage,
  type StageAttempt,
} from "@recall/contracts";
import { inlineCpu, type CpuLane, type CpuRunner } from "./cpu/cpu-pool";
import type { RuleReading } from "./cpu/rule-reading";
import type { BudgetLimits, ExtractionGuidance, Extractor, ExtractorFactory, StageOutcome } from "./extractor";
import { ModelStage, UnavailableModelStage } from "./model-stage";

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
  /** Where the rules run (a CPU pool's thread in a worker process); default: in this thread. */
  cpu?: CpuRunner;
  /** The CPU pool's lane for this extractor's inputs. Default: interactive. */
  lane?: CpuLane;
}

/** Tokens are counted per input by extract(), across every stage the input went through. */
type Outcome = Omit<StageOutcome, "tokensUsed">;

/** An escalation, and the stage it goes to when that is not simply the next one. */
type Handoff = Escalation & { to?: Stage };

export class StagedExtractor implements Extractor {
  readonly budget: Budget;
  /** The model stages, in order; the rules read every input first. */
  readonly stages: readonly ExtractionStage[];
  #stageReached: Stage | undefined;

  constructor(private readonly options: StagedExtractorOptions) {
    this.budget = new Budget({ maxTokens: options.limits.maxTokens, maxWallMs: options.limits.maxWallMs });
    this.stages = modelStages(options, this.budget);
  }

  get tokensUsed(): number {
    return this.budget.used.totalTokens;
  }

  get stageReached(): Stage | undefined {
    return this.#stageReached;
  }

  async extract(input: ExtractionInput, guidance: ExtractionGuidance, signal?: AbortSignal): Promise<StageOutcome> {
    const before = this.tokensUsed;
    const outcome = await this.run(input, guidance, signal);
    // Every call of this input counts, including a fast answer that was escalated.
    return { ...outcome, tokensUsed: this.tokensUsed - before };
  }

  private async run(input: ExtractionInput, guidance: ExtractionGuidance, signal: AbortSignal | undefined): Promise<Outcome> {
    this.#stageReached = "heuristic";
    const reading = await this.readRules(input, signal);
    const handoff = this.handOn("heuristic", reading.attempt, reading.ambiguous);
    if (!handoff) return outcome("heuristic", reading.attempt);
    const first = handoff.to ? this.stages.findIndex((s) => s.name === handoff.to) : 0;
    if (first < 0 || first >= this.stages.length) return this.lastWord("heuristic", reading.attempt, handoff, reading.ambiguous);
    try {
      return await this.runModels(input, guidance, signal, first, handoff);
    } catch (err) {
      // A tier set without its key: as with no model at all, the rules' sure part is kept and the rest waits.
      if (!(err instanceof NoProviderError)) throw err;
      return this.awaitingModel(reading.attempt, `${handoff.reason}; ${err.message}`, reading.ambiguous);
    }
  }

  private readRules(input: ExtractionInput, signal: AbortSignal | undefined): Promise<RuleReading> {
    const { cpu = inlineCpu, lane = "interactive", threshold } = this.options;
    return cpu.run("rules", input, { threshold }, { lane, signal });
  }

  /** The model stages from `first` on, each handing on to the next (or the one the handoff names). */
  private async runModels(
    input: ExtractionInput,
    guidance: ExtractionGuidance,
    signal: AbortSignal | undefined,
    first: number,
    handoff: Handoff,
  ): Promise<Outcome> {
    let escalation: Handoff | undefined = handoff;
    for (let i = first; i < this.stages.length;) {
      const stage = this.stages[i]!;
      this.#stageReached = stage.name;
      let attempt: StageAttempt;
      try {
        attempt = await stage.extract(input, guidance, { signal, escalation });
      } catch (err) {
        escalation = this.handOnError(stage.name, err);
        if (!escalation) throw err;
        i = this.nextIndex(i, escalation);
        continue;
      }
      const next = this.handOn(stage.name, attempt, undefined);
      if (!next) return outcome(stage.name, attempt);
      const after = this.nextIndex(i, next);
      if (after >= this.stages.length) return this.lastWord(stage.name, attempt, next);
      [escalation, i] = [next, after];
    }
    throw new Error("unreachable: the strong stage always answers or throws");
  }

  /** Undefined accepts the attempt; otherwise why (and where) the input goes on. */
  private handOn(stage: Stage, attempt: StageAttempt, ambiguous: string | undefined): Handoff | undefined {
    if (stage === "heuristic") {
      // Rules cannot tell which of two known entities a name means, so facts they read about it go to a model.
      if (attempt.finished && !(ambiguous && !isEmptyDiff(attempt.diff))) return undefined;
      if (ambiguous && this.has("strong")) {
        return {
          reason: `ambiguous reference "${ambiguous}": two known entities fit`,
          note: `"${ambiguous}" fits more than one known entity; attach facts to one only when the text makes clear which, else record an uncertainty`,
          to: "strong",
        };
      }
      return { reason: attempt.finished ? `ambiguous reference "${ambiguous}"` : attempt.reason };
    }
    const contradiction = stage === "fast" ? selfContradiction(attempt.diff) : undefined;
    if (!contradiction) return undefined;
    const reason = `fast answer contradicts itself: ${contradiction}`;
    return { reason, note: `a first reading failed: ${reason}` };
  }

  /** Only a fast answer that fails validation is worth a second, stronger reading. */
  private handOnError(stage: Stage, err: unknown): Handoff | undefined {
    if (stage !== "fast" || !(err instanceof OutputValidationError) || !this.has("strong")) return undefined;
    const reason = `fast model output failed validation after one repair (${clip(err.message)})`;
    return { reason, note: `a first reading failed: ${reason}` };
  }

  /** No stage left to hand on to: the rules' sure part is kept and the rest awaits a model; a fast answer is kept with a warning. */
  private lastWord(stage: Stage, attempt: StageAttempt, handoff: Handoff, ambiguous?: string): Outcome {
    if (stage === "heuristic") return this.awaitingModel(attempt, `${handoff.reason}; ${NO_MODEL}`, ambiguous);
    return { ...outcome(stage, attempt), reason: `${handoff.reason}; no strong model configured, keeping the fast answer` };
  }

  /**
   * What the rules are sure of, committed now; the input is marked awaiting a model for the rest. Facts about a
   * name two known entities fit are not sure: the rules cannot tell which one is meant, so they wait too.
   */
  private awaitingModel(attempt: StageAttempt, reason: string, ambiguous: string | undefined): Outcome {
    this.#stageReached = "heuristic";
    const diff = ambiguous ? withoutName(attempt.diff, ambiguous) : attempt.diff;
    return { diff, stage: "heuristic", reason, awaitingModel: true };
  }

  private nextIndex(current: number, handoff: Handoff): number {
    return handoff.to ? this.stages.findIndex((s) => s.name === handoff.to) : current + 1;
  }

  private has(stage: Stage): boolean {
    return this.stages.some((s) => s.name === stage);
  }
}

const NO_MODEL =
  "no model configured: the rules' sure part is committed and the rest awaits a model; set RECALL_FAST_MODEL " +
  "(and optionally RECALL_STRONG_MODEL) to provider:model with the provider's key (anthropic: ANTHROPIC_API_KEY; " +
  "openai: OPENAI_API_KEY; openai-compatible: OPENAI_BASE_URL), then extract again (POST /api/v1/admin/work-items/extract-again)";

/** The diff without what names `name` (entities, their attributes, relations either side). */
function withoutName(diff: ExtractionDiff, name: string): ExtractionDiff {
  const other = (n: string) => n.trim().toLowerCase() !== name.trim().toLowerCase();
  return {
    ...diff,
    entities: diff.entities.filter((e) => other(e.name)),
    attributes: diff.attributes.filter((a) => other(a.entity)),
    relations: diff.relations.filter((r) => other(r.subject) && other(r.object)),
  };
}

function outcome(stage: Stage, attempt: StageAttempt): Outcome {
  return { diff: attempt.diff, stage, ...(attempt.model ? { model: attempt.model } : {}), reason: attempt.reason };
}

/**
 * The model tiers in order. A tier set without its key keeps its place and fails when reached;
 * a strong-only service starts at strong, unless its strong model cannot be built: then the
 * input fails at the fast step, as it would with no model at all.
 */
function modelStages(options: StagedExtractorOptions, budget: Budget): ExtractionStage[] {
  const { fast, strong, unavailable = {} } = options;
  const stages: ExtractionStage[] = [];
  if (fast) stages.push(new ModelStage("fast", fast, budget));
  else if (unavailable.fast) stages.push(new UnavailableModelStage("fast", unavailable.fast));
  else if (!strong && unavailable.strong) stages.push(new UnavailableModelStage("fast", unavailable.strong));
  if (strong) stages.push(new ModelStage("strong", strong, budget));
  else if (unavailable.strong) stages.push(new UnavailableModelStage("strong", unavailable.strong));
  return stages;
}

/** Validation messages list every issue; a reason (stored, logged, shown to the strong model) needs the gist. */
function clip(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
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

export interface StagedExtractorFactoryOptions {
  providers: ProviderOptions;
  /** Heuristic decisions below this confidence go to a model. */
  heuristicThreshold: number;
  /** Where the rules run; default: in this thread (tests, benches). */
  cpu?: CpuRunner;
  /** Model calls a lane may have in flight at once in this process (call-limit.ts); default: no limit. */
  callLimits?: Partial<Record<CpuLane, CallLimit>>;
}

/** One extractor per work item, so the budget spans all of that item's inputs. */
export function createStagedExtractorFactory(options: StagedExtractorFactoryOptions): ExtractorFactory {
  const { cpu, heuristicThreshold: threshold } = options;
  // Built once: a client holds no state of its own between calls (budgets are the extractor's), and building one per
  // input cost every extraction an SDK client's set-up.
  const clients = modelClients(options.providers);
  const byLane = (lane: CpuLane) => {
    const limit = options.callLimits?.[lane];
    if (!limit) return clients;
    const { fast, strong, unavailable } = clients;
    return { unavailable, fast: fast && limitedClient(fast, limit), strong: strong && limitedClient(strong, limit) };
  };
  const lanes = { interactive: byLane("interactive"), background: byLane("background") };
  return (limits, lane = "interactive") => new StagedExtractor({ ...lanes[lane], threshold, limits, cpu, lane });
}

function modelClients(providers: ProviderOptions): Pick<StagedExtractorOptions, "fast" | "strong" | "unavailable"> {
  const clients: Pick<StagedExtractorOptions, "fast" | "strong"> = {};
  const unavailable: Partial<Record<ModelTier, NoProviderError>> = {};
  for (const tier of ["fast", "strong"] as const) {
    try {
      clients[tier] = createModelClient(providers, tier);
    } catch (err) {
      if (!(err instanceof NoProviderError)) throw err;
      unavailable[tier] = err;
    }
  }
  return { ...clients, unavailable };
}
