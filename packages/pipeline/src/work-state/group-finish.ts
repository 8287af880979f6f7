// A group's job (a window's, a batch's later stage) ran its stage for each of its turns: each turn's success is
// recorded as its own job would record it, with its writes, in the transaction that records the group's own success
// (the factory's one success path, worker-factory.ts). All turns under one savepoint first; only when one of them
// fails is each written under its own, and a turn that fails (its stage, or its writes) leaves the group to run alone.
import type { Tx, WorkItem } from "@recall/db";
import type { Logger } from "@recall/telemetry";
import { classifyError } from "../errors";
import { QUEUES, type QueueName } from "../registry";
import { successorOf, type NewWorkItem } from "./create-items";
import { finishInTransaction, finishManyInTransaction, type StageOutput, type Success } from "./finish-item";
import { groupKey, leaveGroup, type GroupRef, type WindowTurnClaim } from "./turn-groups";

/** What the group's job ran for one turn: its stage's result, as the turn's own job would have it, or its error. */
export type GroupTurnRun<W = unknown> = { claim: Pick<WindowTurnClaim, "item" | "attemptId">; wallMs: number } & (
  | {
      tokensUsed?: number;
      output?: StageOutput;
      /** false: the turn's next stage has nothing to do (no item for it). */
      next?: boolean;
      nextDone?: StageOutput;
      /** The turn's writes; `shared` is what `prepare` answered when the turns are written together. */
      write?(tx: Tx, shared?: W): Promise<void>;
    }
  | { error: unknown }
);

export interface GroupTurns<W = unknown> {
  queue: QueueName;
  ref: GroupRef;
  turns: GroupTurnRun<W>[];
  /** What the turns' writes share when written together (a commit's locks and checks for all of them at once). */
  prepare?(tx: Tx): Promise<W>;
  /** Once every turn wrote into what `prepare` answered: the rows they buffered there, written together. */
  complete?(tx: Tx, shared: W): Promise<void>;
}

/** A turn whose stage succeeded in the group's job. */
export type GroupTurnSucceeded<W = unknown> = Exclude<GroupTurnRun<W>, { error: unknown }>;

/**
 * Records every turn's outcome in the caller's transaction; answers the turns that left the group, to queue after it
 * commits. `logger` hears why the turns' writes together failed, when they did and each turn was then written alone.
 */
export async function finishGroupTurns<W>(tx: Tx, turnsOfGroup: GroupTurns<W>, logger: Logger): Promise<WorkItem[]> {
  const { queue, ref: group, turns } = turnsOfGroup;
  if (await finishAll(tx, turnsOfGroup, logger)) return [];
  const left: WorkItem[] = [];
  for (const turn of turns) {
    const item = await finishAlone(tx, queue, group, turn);
    if (item) left.push(item);
  }
  return left;
}

/** All turns' successes and writes in one savepoint, when every turn's stage succeeded; false (and nothing written) if one fails. */
async function finishAll<W>(tx: Tx, together: GroupTurns<W>, logger: Logger): Promise<boolean> {
  const { queue, ref: group, turns } = together;
  const ran = turns.filter((t): t is GroupTurnSucceeded<W> => !("error" in t));
  if (ran.length < turns.length) return false;
  await tx.$executeRawUnsafe("SAVEPOINT group_turns");
  try {
    const prepared = together.prepare && { shared: await together.prepare(tx) };
    await finishManyInTransaction(
      tx,
      ran.map((turn) => success(queue, group, turn)),
    );
    for (const turn of ran) await turn.write?.(tx, prepared?.shared);
    if (prepared) await together.complete?.(tx, prepared.shared);
    await tx.$executeRawUnsafe("RELEASE SAVEPOINT group_turns");
    return true;
  } catch (err) {
    await tx.$executeRawUnsafe("ROLLBACK TO SAVEPOINT group_turns");
    // Not the turns' failure yet: each is written alone next, and only a turn whose own write fails leaves the group.
    logger.warn(
      { groupKind: group.kind, groupId: group.id, turns: turns.length, err: (err as Error).message },
      "a group's turns could not be written together; writing each alone",
    );
    return false;
  }
}

/** The turn's success and writes in a savepoint of its own; a turn that fails leaves the group instead (its item answered). */
async function finishAlone<W>(tx: Tx, queue: QueueName, group: GroupRef, turn: GroupTurnRun<W>): Promise<WorkItem | undefined> {
  await tx.$executeRawUnsafe("SAVEPOINT group_turn");
  try {
    if ("error" in turn) throw turn.error;
    await finishInTransaction(tx, success(queue, group, turn));
    await turn.write?.(tx);
    await tx.$executeRawUnsafe("RELEASE SAVEPOINT group_turn");
    return undefined;
  } catch (err) {
    await tx.$executeRawUnsafe("ROLLBACK TO SAVEPOINT group_turn");
    const { errorClass, message } = classifyError(err);
    return leaveGroup(tx, group.kind, turn.claim, { errorClass, message: `${group.kind}: ${message}` });
  }
}

/** The turn's success as its own job would record it, its next stage's item waiting for the group's. */
function success<W>(queue: QueueName, group: GroupRef, turn: GroupTurnSucceeded<W>): Success {
  const { claim } = turn;
  return {
    workItemId: claim.item.id,
    attemptId: claim.attemptId,
    tokensUsed: turn.tokensUsed,
    wallMs: turn.wallMs,
    result: turn.output,
    next: turn.next === false ? undefined : nextInGroup(queue, claim.item, group),
    nextDone: turn.nextDone,
  };
}

/** The turn's item of the next stage, waiting for the group's job of that stage. */
export function nextInGroup(queue: QueueName, item: WorkItem, group: GroupRef): NewWorkItem | undefined {
  const next = (QUEUES[queue] as { next?: QueueName }).next;
  return next && { ...successorOf(item, next), waiting: true, payload: { [groupKey(group.kind)]: group.id } };
}
