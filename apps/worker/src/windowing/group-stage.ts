// validate_artifacts, commit_artifacts and truth_maintenance for a group of turns (a window, or the turns of a batch
// the rules finished): one job per stage for all of them (packages/pipeline work-state/turn-groups.ts). Each turn is
// run by its own stage's code as if it had a job of its own: read in the group's claim transaction and processed;
// the group's job answers each turn's result, and the factory records them with the group's own success, through
// its one success path (work-state/group-finish.ts): a turn that fails leaves the group and runs alone (its own job
// and retries) while the others go on; when the group's job gives up for good, every turn still in it runs alone.
// Each turn keeps its own candidates, facts, items and attempts.
import { kindOf, type GroupKind } from "@recall/contracts";
import type { WorkItem } from "@recall/db";
import {
  claimGroupTurns,
  enqueueOrLeaveForSweeper,
  releaseGroupTurns,
  stageSuccess,
  type ClaimedWork,
  type GroupRef,
  type GroupTurnRun,
  type GroupTurnSucceeded,
  type GroupTurns,
  type LoadingStage,
  type QueueName,
  type StageContext,
  type StageHandler,
  type WindowTurnClaim,
} from "@recall/pipeline";
import { currentTraceId } from "@recall/telemetry";
import type { WorkerDeps } from "../deps";

interface WindowTurn<I> {
  claim: WindowTurnClaim;
  work: ClaimedWork;
  input: I;
}

/** The stage's handler for a group's job (a window's, a batch's), running `turnStage` (the stage's own handler) for each of its turns. */
export function groupStage<I, W>(
  deps: WorkerDeps,
  queue: QueueName,
  kind: GroupRef["kind"],
  turnStage: LoadingStage<I, W>,
): StageHandler<WindowTurn<I>[]> {
  const groupRef = (item: Pick<WorkItem, "subjectId">): GroupRef => ({ kind, id: item.subjectId });
  return {
    async load(tx, window) {
      const claims = await claimGroupTurns(tx, queue, groupRef(window.item), currentTraceId() ?? null);
      const works = claims.map((claim) => turnWork(window, claim));
      const inputs = turnStage.loadMany
        ? await turnStage.loadMany(tx, works)
        : await sequentially(works, (work) => turnStage.load(tx, work));
      return claims.map((claim, i) => ({ claim, work: works[i]!, input: inputs[i]! }));
    },
    async process(ctx) {
      const turns: GroupTurnRun<W>[] = [];
      for (const turn of ctx.input) turns.push(await runTurn(turnStage, ctx, turn));
      const going = turns.filter((t): t is GroupTurnSucceeded<W> => !("error" in t));
      const group: GroupTurns<W> = {
        queue,
        ref: groupRef(ctx.item),
        turns,
        prepare:
          turnStage.prepareWrites &&
          ((tx) =>
            turnStage.prepareWrites!(
              tx,
              ctx.input.map((t) => t.work),
              ctx.input.map((t) => t.input),
            )),
        complete: turnStage.completeWrites && ((tx, shared) => turnStage.completeWrites!(tx, shared)),
      };
      return {
        status: "succeeded",
        tokensUsed: going.reduce((n, t) => n + (t.tokensUsed ?? 0), 0),
        // The window's next stage runs for the turns that go on to it; done when none has anything left to do there.
        next: going.some((t) => t.next !== false),
        nextDone: going.every((t) => t.nextDone) ? going[0]?.nextDone : undefined,
        group,
      };
    },
    async onDead(window, message) {
      const turns = await releaseGroupTurns(deps.db, queue, groupRef(window), `${kind}: ${message}`);
      for (const item of turns) await enqueueOrLeaveForSweeper(deps, item);
    },
  };
}

/**
 * The stage's handler for turns (their own jobs) and for the kinds that are groups of turns (a window's later stages,
 * a batch's): the group's handler, by the kind's group (kinds registry), runs one job for all of them.
 */
export function byKind(turn: StageHandler<unknown>, groups: Partial<Record<GroupKind, StageHandler<unknown>>>): StageHandler<unknown> {
  const pick = (item: Pick<WorkItem, "subjectType">) => {
    const group = kindOf(item.subjectType).group;
    return (group && groups[group]) || turn;
  };
  return {
    load: (tx, claimed) => pick(claimed.item).load?.(tx, claimed) ?? Promise.resolve(undefined),
    process: (ctx) => pick(ctx.item).process(ctx),
    onDead: (item, message) => pick(item).onDead?.(item, message) ?? Promise.resolve(),
  };
}

async function sequentially<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (const item of items) results.push(await fn(item));
  return results;
}

/** A turn's claim as its own job would have it: the window's context, the turn's row and plan. */
function turnWork(window: ClaimedWork, claim: WindowTurnClaim): ClaimedWork {
  return {
    item: claim.item,
    attemptId: claim.attemptId,
    contextConfig: window.contextConfig,
    subject: { turn: claim.turn, document: null, factWrite: null, review: null },
    plan: claim.plan,
  };
}

async function runTurn<I, W>(
  stage: StageHandler<I, W>,
  window: StageContext<WindowTurn<I>[]>,
  turn: WindowTurn<I>,
): Promise<GroupTurnRun<W>> {
  const started = performance.now();
  const { item } = turn.claim;
  const ctx: StageContext<I> = {
    ...window,
    item,
    claim: turn.work,
    input: turn.input,
    payload: { ...window.payload, workItemId: item.id, subjectType: "turn", subjectId: item.subjectId },
    attempt: item.attempts,
    logger: window.logger.child({ turnWorkItemId: item.id }),
  };
  const wallMs = () => Math.round(performance.now() - started);
  try {
    const { tokensUsed, output, next, nextDone, write } = stageSuccess(await stage.process(ctx));
    return { claim: turn.claim, wallMs: wallMs(), tokensUsed, output, next, nextDone, write };
  } catch (error) {
    return { claim: turn.claim, wallMs: wallMs(), error };
  }
}
