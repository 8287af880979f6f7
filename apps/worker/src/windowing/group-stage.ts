// validate_artifacts, commit_artifacts and truth_maintenance for a group of turns (a window, or the turns of a batch
// the rules finished): one job per stage for all of them (packages/queues work-state/turn-groups.ts). Each turn is
// run by its own stage's code as if it had a job of its own: read in the group's claim transaction, processed, and
// written with its own success in a savepoint of the group's finishing transaction, so a turn that fails leaves the
// group and runs alone (its own job and retries) while the others go on; when the group's job gives up for good,
// every turn still in it runs alone. Each turn keeps its own candidates, facts, items and attempts.
import type { Tx, WorkItem } from "@recall/db";
import {
  QUEUES,
  claimGroupTurns,
  classifyError,
  enqueueOrLeaveForSweeper,
  finishInTransaction,
  finishManyInTransaction,
  groupKey,
  leaveGroup,
  releaseGroupTurns,
  successorOf,
  type ClaimedWork,
  type GroupRef,
  type NewWorkItem,
  type QueueName,
  type StageContext,
  type StageHandler,
  type StageResult,
  type Success,
  type SubjectType,
  type WindowTurnClaim,
} from "@recall/queues";
import { currentTraceId } from "@recall/telemetry";
import type { WorkerDeps } from "../deps";

interface WindowTurn {
  claim: WindowTurnClaim;
  work: ClaimedWork;
  input: unknown;
}

type Outcome = { turn: WindowTurn; result: StageResult; wallMs: number } | { turn: WindowTurn; error: unknown };

/** The stage's handler for a group's job (a window's, a batch's), running `turnStage` (the stage's own handler) for each of its turns. */
export function groupStage(
  deps: WorkerDeps,
  queue: QueueName,
  kind: GroupRef["kind"],
  turnStage: StageHandler<unknown>,
): StageHandler<WindowTurn[]> {
  const groupRef = (item: Pick<WorkItem, "subjectId">): GroupRef => ({ kind, id: item.subjectId });
  return {
    async load(tx, window) {
      const claims = await claimGroupTurns(tx, queue, groupRef(window.item), currentTraceId() ?? null);
      const works = claims.map((claim) => turnWork(window, claim));
      const inputs = turnStage.loadMany
        ? await turnStage.loadMany(tx, works)
        : await sequentially(works, (work) => turnStage.load?.(tx, work) ?? Promise.resolve(undefined));
      return claims.map((claim, i) => ({ claim, work: works[i]!, input: inputs[i] }));
    },
    async process(ctx) {
      const outcomes: Outcome[] = [];
      for (const turn of ctx.input) outcomes.push(await runTurn(turnStage, ctx, turn));
      const left: WorkItem[] = [];
      const going = outcomes.filter((o): o is Extract<Outcome, { result: StageResult }> => "result" in o);
      return {
        status: "succeeded",
        tokensUsed: going.reduce((n, o) => n + (o.result.tokensUsed ?? 0), 0),
        // The window's next stage runs for the turns that go on to it; done when none has anything left to do there.
        next: going.some((o) => o.result.next !== false),
        nextDone: going.every((o) => o.result.nextDone) ? going[0]?.result.nextDone : undefined,
        write: async (tx) => {
          const group = groupRef(ctx.item);
          // Every turn's writes under one savepoint; only when one of them fails is each turn written under its own.
          if (await writeAll(tx, turnStage, queue, group, outcomes)) return;
          for (const outcome of outcomes) await writeTurn(tx, queue, group, outcome, left);
        },
        after: async () => {
          for (const item of left) await enqueueOrLeaveForSweeper(deps, item);
        },
      };
    },
    async onDead(window, message) {
      const turns = await releaseGroupTurns(deps.db, queue, groupRef(window), `${kind}: ${message}`);
      for (const item of turns) await enqueueOrLeaveForSweeper(deps, item);
    },
  };
}

/**
 * The stage's handler for turns (their own jobs) and for the subjects that hold many turns (a window's later stages, a
 * batch's extraction): one job for all of them.
 */
export function bySubject(turn: StageHandler<unknown>, groups: Partial<Record<SubjectType, StageHandler<unknown>>>): StageHandler<unknown> {
  const pick = (item: Pick<WorkItem, "subjectType">) => groups[item.subjectType as SubjectType] ?? turn;
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

async function runTurn(stage: StageHandler<unknown>, window: StageContext<unknown>, turn: WindowTurn): Promise<Outcome> {
  const started = performance.now();
  const { item } = turn.claim;
  const ctx: StageContext<unknown> = {
    ...window,
    item,
    claim: turn.work,
    input: turn.input,
    payload: { ...window.payload, workItemId: item.id, subjectType: "turn", subjectId: item.subjectId },
    attempt: item.attempts,
    logger: window.logger.child({ turnWorkItemId: item.id }),
  };
  try {
    return { turn, result: await stage.process(ctx), wallMs: Math.round(performance.now() - started) };
  } catch (error) {
    return { turn, error };
  }
}

/** All turns' successes and writes in one savepoint, when every turn's stage succeeded; false (and nothing written) if one fails. */
async function writeAll(tx: Tx, stage: StageHandler<unknown>, queue: QueueName, group: GroupRef, outcomes: Outcome[]): Promise<boolean> {
  if (outcomes.some((o) => "error" in o)) return false;
  const succeeded = outcomes as Extract<Outcome, { result: StageResult }>[];
  await tx.$executeRawUnsafe("SAVEPOINT group_turns");
  try {
    const prepared = await stage.prepareWrites?.(
      tx,
      succeeded.map((o) => o.turn.work),
    );
    await finishManyInTransaction(
      tx,
      succeeded.map((outcome) => success(queue, group, outcome)),
    );
    for (const { result } of succeeded) await result.write?.(tx, prepared);
    await tx.$executeRawUnsafe("RELEASE SAVEPOINT group_turns");
    return true;
  } catch {
    await tx.$executeRawUnsafe("ROLLBACK TO SAVEPOINT group_turns");
    return false;
  }
}

/** The turn's success as its own job would record it, its next stage's item waiting for the group's. */
function success(queue: QueueName, group: GroupRef, outcome: Extract<Outcome, { result: StageResult }>): Success {
  const { claim } = outcome.turn;
  const { result } = outcome;
  return {
    workItemId: claim.item.id,
    attemptId: claim.attemptId,
    tokensUsed: result.tokensUsed,
    wallMs: outcome.wallMs,
    result: result.output,
    next: result.next === false ? undefined : nextInGroup(queue, claim.item, group),
    nextDone: result.nextDone,
  };
}

async function writeSuccess(tx: Tx, queue: QueueName, group: GroupRef, outcome: Extract<Outcome, { result: StageResult }>): Promise<void> {
  await finishInTransaction(tx, success(queue, group, outcome));
  await outcome.result.write?.(tx);
}

/** The turn's success and writes in a savepoint of the group's transaction; a turn that fails leaves the group instead. */
async function writeTurn(tx: Tx, queue: QueueName, group: GroupRef, outcome: Outcome, left: WorkItem[]): Promise<void> {
  await tx.$executeRawUnsafe("SAVEPOINT group_turn");
  try {
    if ("error" in outcome) throw outcome.error;
    await writeSuccess(tx, queue, group, outcome);
    await tx.$executeRawUnsafe("RELEASE SAVEPOINT group_turn");
  } catch (err) {
    await tx.$executeRawUnsafe("ROLLBACK TO SAVEPOINT group_turn");
    const { errorClass, message } = classifyError(err);
    const item = await leaveGroup(tx, group.kind, outcome.turn.claim, { errorClass, message: `${group.kind}: ${message}` });
    if (item) left.push(item);
  }
}

/** The turn's item of the next stage, waiting for the group's job of that stage. */
export function nextInGroup(queue: QueueName, item: WorkItem, group: GroupRef): NewWorkItem | undefined {
  const next = (QUEUES[queue] as { next?: QueueName }).next;
  return next && { ...successorOf(item, next), waiting: true, payload: { [groupKey(group.kind)]: group.id } };
}
