// Stale-running recovery. A work item is `running` only while something runs it: a queue
// worker, or the API process writing facts in-process (POST /facts). When that process dies
// hard, nothing records an outcome and the item would claim to be running forever. Once its
// attempt is older than the lease (longer than any attempt may run) and no live BullMQ job
// holds it, the sweeper closes the attempt as abandoned and queues the item again, or, with no
// attempts left, marks it dead for an operator to retry. Rerunning is safe because every stage
// is idempotent per work item (a commit finds its own outbox row and writes nothing twice).
import { kindOf } from "@recall/contracts";
import type { Db, WorkItem } from "@recall/db";
import { jobsTotal, workItemsFinished, type Logger } from "@recall/telemetry";
import { itemTrace } from "./item-trace";
import { AbandonedAttemptError } from "./errors";
import { LIVE_JOB_STATES } from "./lost-jobs";
import { findJobState, type QueueSet } from "./producer";
import { isQueueName } from "./registry";
import { requeueWorkItem } from "./retry";
import { WINDOW_STAGES, abandonWorkItem, groupOf, releaseGroupTurns, type GroupRef } from "./work-state";

export interface StaleRunningOptions {
  db: Db;
  queues: QueueSet;
  logger: Logger;
  /** A running attempt older than this, with no live job, is taken back. */
  leaseMs: number;
  batchSize?: number;
}

export interface RecoveredItem {
  workItemId: string;
  status: "queued" | "dead";
}

/** Takes back every abandoned running item it finds; returns what it did with each. */
export async function recoverStaleRunning(options: StaleRunningOptions): Promise<RecoveredItem[]> {
  const { db, leaseMs, batchSize = 100 } = options;
  const stale = await db.workItem.findMany({
    where: { status: "running", startedAt: { lt: new Date(Date.now() - leaseMs) } },
    orderBy: { startedAt: "asc" },
    take: batchSize,
  });
  const recovered: RecoveredItem[] = [];
  for (const item of stale) {
    const outcome = await recoverItem(options, item);
    if (outcome) recovered.push(outcome);
  }
  return recovered;
}

async function recoverItem(options: StaleRunningOptions, item: WorkItem): Promise<RecoveredItem | undefined> {
  const { db, queues, logger, leaseMs } = options;
  const group = groupOf(item);
  if (group) return recoverGroupTurn(options, item, group);
  const queue = isQueueName(item.queue) ? item.queue : undefined;
  if (queue && LIVE_JOB_STATES.has(await findJobState(queues, item))) return undefined;
  const status = queue && item.attempts < item.maxAttempts ? "queued" : "dead";
  const err = new AbandonedAttemptError(
    `attempt ${item.attempts} started ${item.startedAt?.toISOString()} and had no live job after the ${leaseMs / 1_000} s lease ` +
      `(its process stopped); ${status === "queued" ? "queued again" : "no attempts left, retry it to run it again"}`,
  );
  if (!(await abandonWorkItem(db, item, status, err))) return undefined;
  jobsTotal.inc({ queue: item.queue, outcome: status === "queued" ? "failed" : "dead", error_class: err.errorClass });
  if (status === "dead") workItemsFinished.inc({ queue: item.queue, status, error_class: err.errorClass });
  logger.warn(
    { workItemId: item.id, queue: item.queue, attempt: item.attempts, status, traceId: item.traceId },
    "took back an abandoned work item",
  );
  if (status === "queued") await requeueWorkItem(queues, item, itemTrace(item));
  // A group's stage that will not run again lets its turns run alone.
  const held = heldGroup(item);
  if (status === "dead" && held) await releaseTurns(options, item.queue, held, err.message);
  return { workItemId: item.id, status };
}

/** The group whose stage `item` is: a window's later stage, a batch's extraction or later stage. */
function heldGroup(item: WorkItem): GroupRef | undefined {
  const group = kindOf(item.subjectType).group;
  // A window's extraction is the window's own model call, not its turns' stages.
  if (group === "window" && !WINDOW_STAGES.includes(item.queue)) return undefined;
  return group && { kind: group, id: item.subjectId };
}

/**
 * A turn's item held by its window's (or batch's) job is that job's to run: left alone while the group's item will
 * still run; once that item will not (dead, cancelled, gone), the group's turns run alone.
 */
async function recoverGroupTurn(options: StaleRunningOptions, item: WorkItem, group: GroupRef): Promise<RecoveredItem | undefined> {
  const holder = await options.db.workItem.findUnique({
    where: { queue_subjectType_subjectId: { queue: item.queue, subjectType: group.kind, subjectId: group.id } },
  });
  if (holder && ["queued", "running", "failed", "waiting"].includes(holder.status)) return undefined;
  await releaseTurns(options, item.queue, group, `its ${group.kind}'s ${item.queue} stopped (${holder?.status ?? "no work item"})`);
  return { workItemId: item.id, status: "queued" };
}

async function releaseTurns(options: StaleRunningOptions, queue: string, group: GroupRef, why: string): Promise<void> {
  const turns = await releaseGroupTurns(options.db, queue, group, `${group.kind}: ${why}`);
  for (const turn of turns) await requeueWorkItem(options.queues, turn, itemTrace(turn));
}
