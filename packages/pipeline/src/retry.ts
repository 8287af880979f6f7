// Operator retry: the input was kept, so a failed, dead or cancelled work item starts again from it.
import { DomainError } from "@recall/contracts";
import type { Db, WorkItem, WorkStatus } from "@recall/db";
import type { TraceCarrier } from "@recall/telemetry";
import { isRedisUnavailable } from "./connection";
import { itemTrace } from "./item-trace";
import { enqueueWorkItem, findJob, type EnqueueTarget, type QueueSet } from "./producer";
import { laneOf, laneQueueName } from "./priority";
import { isQueueName, type QueueName } from "./registry";
import { resetToQueued } from "./work-state";

/** A retry the item's state does not allow: a 409 `not_retryable`. */
export class NotRetryableError extends DomainError {
  override name = "NotRetryableError";
  constructor(message: string) {
    super("conflict", message, { problem: "not_retryable" });
  }
}

/**
 * Statuses a retry may start from; `failed` items are BullMQ's to retry, but an operator may hurry them. An item
 * `awaiting_model` may be retried one at a time once a model is set (extract-again does many, after a dry run).
 */
export const RETRYABLE_STATUSES: readonly WorkStatus[] = ["failed", "dead", "cancelled", "awaiting_model"];

/**
 * Marks the item queued and puts its job back on the queue, in the input's own trace so one
 * trace shows every try. `from` widens the statuses it may start from (re-extraction restarts a
 * succeeded extraction). Claimed conditionally: of two concurrent retries, one wins.
 */
export async function retryWorkItem(
  db: Db,
  queues: QueueSet,
  item: WorkItem,
  from: readonly WorkStatus[] = RETRYABLE_STATUSES,
  options: { background?: boolean } = {},
): Promise<WorkItem> {
  if (!from.includes(item.status)) {
    throw new NotRetryableError(`work item is ${item.status}; only failed, dead, cancelled or awaiting_model work can be retried`);
  }
  if (!isQueueName(item.queue)) throw new NotRetryableError(`unknown queue ${item.queue}`);
  const updated = await resetToQueued(db, item.id, item.status, options);
  if (!updated) throw new NotRetryableError("work item changed while being retried; read it again");
  try {
    await requeueWorkItem(queues, updated, itemTrace(updated));
  } catch (err) {
    // It is queued in Postgres: the sweeper puts it on its queue once Redis answers again.
    if (!isRedisUnavailable(err)) throw err;
  }
  return updated;
}

/**
 * Retries the item's kept failed BullMQ job, or adds it again under the same job id (a finished
 * job, or one kept in the other lane than the item's now, is removed first: a kept job id would
 * make the add a no-op).
 */
export async function requeueWorkItem(queues: QueueSet, item: EnqueueTarget, trace?: TraceCarrier): Promise<void> {
  const job = await findJob(queues, item);
  const ownLane = job?.queueName === laneQueueName(item.queue as QueueName, laneOf(item));
  if (job && ownLane && (await job.isFailed())) {
    await job.retry("failed", { resetAttemptsMade: true });
  } else {
    if (job) await job.remove().catch(() => undefined);
    await enqueueWorkItem(queues, item, trace);
  }
}
