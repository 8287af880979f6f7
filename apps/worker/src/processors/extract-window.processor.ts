// extract_window: one model call for a window of a session's asynchronous turns. Each item of
// the answer names its turn; each turn then gets its own candidates and goes on through its own
// validation (evidence checked against that turn's text), commit and truth maintenance. A window
// whose answer fails validation or whose budget runs out is split in two and retried, down to
// single turns, which go the interactive way; nothing is dropped. Tokens are metered here, on
// the window's own work item.
import { systemPrompt, splitWindowDiff, strayTurns, WindowDiff, windowPrompt } from "@recall/extraction";
import {
  Budget,
  BudgetExceededError,
  NoProviderError,
  OutputValidationError,
  createModelClient,
  structuredCall,
  type ModelClient,
} from "@recall/llm";
import { classifyError, isFinalFailure, type StageContext, type StageProcessor } from "@recall/pipeline";
import { providerOptions } from "@recall/config";
import { ServiceError, StageFailure, turnSourceText } from "@recall/contracts";
import type { Turn } from "@recall/db";
import { scopeOf } from "@recall/memory";
import type { WorkerDeps } from "../deps";
import { loadKnownMemory } from "../services/known-memory";
import { budgetLimits, resolvePlan } from "../services/plan";
import { turnSubject } from "../services/subject-loader";
import { closeWindow, splitWindow } from "../windowing/window-assembler";
import { failTurns, finishTurns, handToInteractive } from "../windowing/window-handoff";

const MAX_OUTPUT_TOKENS = 16_384;

export function extractWindowProcessor(deps: WorkerDeps): StageProcessor {
  let client: ModelClient | undefined;
  const fast = () => (client ??= createModelClient(providerOptions(deps.config), "fast"));
  return async (ctx) => {
    const { window, turns } = await closeWindow(deps.db, ctx.payload.subjectId);
    const waiting = await waitingTurns(deps, turns);
    if (waiting.length === 0) return { status: "succeeded", next: false };
    const budget = windowBudget(deps, ctx);
    try {
      await readWindow(deps, ctx, { windowId: window.id, turns: waiting, budget, client: fast() });
      return { status: "succeeded", tokensUsed: budget.used.totalTokens, next: false };
    } catch (err) {
      const splittable = err instanceof OutputValidationError || err instanceof BudgetExceededError || err instanceof StrayTurnsError;
      if (splittable) {
        await split(deps, ctx, waiting, (err as Error).message);
        return { status: "succeeded", tokensUsed: budget.used.totalTokens, next: false };
      }
      await failIfFinal(deps, ctx, waiting, err);
      // What the attempt spent is metered on the window's item, so its retries spend what is left of the budget.
      throw new StageFailure(err, budget.used.totalTokens);
    }
  };
}

/** Turns retried by an operator since they joined the window are no longer its to read. */
async function waitingTurns(deps: WorkerDeps, turns: Turn[]): Promise<Turn[]> {
  const items = await deps.db.workItem.findMany({
    where: { queue: "extract_assertions", subjectType: "turn", subjectId: { in: turns.map((t) => t.id) }, status: "waiting" },
    select: { subjectId: true },
  });
  const ids = new Set(items.map((i) => i.subjectId));
  return turns.filter((t) => ids.has(t.id));
}

/** Like a turn's, the window's token budget spans its attempts, under the lower of the service's and the context's limits. */
function windowBudget(deps: WorkerDeps, ctx: StageContext): Budget {
  const limits = budgetLimits(deps.config, ctx.claim.contextConfig);
  return new Budget({ maxTokens: Math.max(0, limits.maxTokens - ctx.item.tokensUsed), maxWallMs: limits.maxWallMs });
}

/** The answer names turns outside the window: the window is split, never retried whole. */
class StrayTurnsError extends ServiceError {
  override name = "StrayTurnsError";
}

interface Reading {
  windowId: string;
  turns: Turn[];
  budget: Budget;
  client: ModelClient | undefined;
}

async function readWindow(deps: WorkerDeps, ctx: StageContext, { windowId, turns, budget, client }: Reading): Promise<void> {
  if (!client)
    throw new NoProviderError("fast", ["RECALL_FAST_MODEL"], "windowed extraction needs RECALL_FAST_MODEL; set it, then retry the turns");
  // Each turn recorded its plan when it joined the window (windowed-turn.ts); the window follows its first turn's.
  const first = { ...turns[0]!, scope: await scopeOf(deps.db, turns[0]!.scopeSetId) };
  const { guidance } = resolvePlan(deps, turnSubject(first, ctx.claim.contextConfig));
  const known = await loadKnownMemory(deps.db, turns[0]!.contextId, turns.map(turnSourceText));
  const prompt = windowPrompt(
    turns.map((t) => ({
      text: turnSourceText(t),
      role: t.role,
      speaker: t.speaker ?? undefined,
      referenceTime: t.occurredAt ?? t.createdAt,
    })),
    known,
  );
  const result = await structuredCall(
    client,
    {
      system: systemPrompt(guidance),
      user: prompt,
      schema: WindowDiff,
      schemaName: "window_extraction",
      maxTokens: Math.max(1, Math.min(MAX_OUTPUT_TOKENS, budget.remainingTokens)),
      signal: ctx.signal,
    },
    // The fast tier's call (its turns' outcomes say stage fast): labelled so in metrics and usage.
    { budget, stage: "fast" },
  );
  const stray = strayTurns(result.value, turns.length);
  if (stray.length > 0) throw new StrayTurnsError(`answer names turns ${stray.join(", ")} of a ${turns.length}-turn window`);
  const reason = `window of ${turns.length} turns${result.attempts === 2 ? " (after one repair)" : ""}`;
  await finishTurns(deps.db, deps, turns, splitWindowDiff(result.value, turns.length), {
    windowId,
    traceId: ctx.item.traceId,
    model: `${client.provider}:${result.model}`,
    reason,
    windowTokens: budget.used.totalTokens,
  });
}

async function split(deps: WorkerDeps, ctx: StageContext, turns: Turn[], why: string): Promise<void> {
  ctx.logger.warn({ turns: turns.length, why }, "window split");
  if (turns.length === 1) return handToInteractive(deps.db, deps.queues, turns[0]!.id, why);
  await splitWindow(
    deps.db,
    deps,
    ctx.payload.subjectId,
    turns.map((t) => t.id),
    ctx.item.traceId,
  );
}

/** On the window's last try (or an error no retry fixes) its turns fail with it, each retryable alone. */
async function failIfFinal(deps: WorkerDeps, ctx: StageContext, turns: Turn[], err: unknown): Promise<void> {
  if (!isFinalFailure(err, ctx.lastTry)) return;
  const { errorClass, message } = classifyError(err);
  await failTurns(
    deps.db,
    turns.map((t) => t.id),
    errorClass,
    message,
  );
}
