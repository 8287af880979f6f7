// Operator retry: the input was kept, so a failed or dead work item starts again from it.
import type { Db, WorkItem } from "@recall/db";
import type { TraceCarrier } from "@recall/telemetry";
import { enqueueWorkItem, type EnqueueTarget, type QueueSet } from "./producer";
import { isQueueName, jobIdFor, type QueueName } from "./registry";

export class NotRetryableError extends Error {
  override name = "NotRetryableError";
}

/** Marks the item queued and puts its job back on the queue. */
export async function retryWorkItem(db: Db, queues: QueueSet, item: WorkItem): Promise<WorkItem> {
  if (item.status !== "dead" && item.status !== "failed") {
    throw new NotRetryableError(`work item is ${item.status}; only failed or dead work can be retried`);
  }
  if (!isQueueName(item.queue)) throw new NotRetryableError(`unknown queue ${item.queue}`);
  const updated = await db.workItem.update({
    where: { id: item.id },
    data: { status: "queued", errorClass: null, errorMessage: null, finishedAt: null },
  });
  await requeueWorkItem(queues, updated);
  return updated;
}

/**
 * Retries the item's kept failed BullMQ job, or adds it again under the same job id (a finished
 * job is removed first: a kept job id would make the add a no-op).
 */
export async function requeueWorkItem(queues: QueueSet, item: EnqueueTarget, trace?: TraceCarrier): Promise<void> {
  const job = await queues[item.queue as QueueName].getJob(jobIdFor(item.id));
  if (job && (await job.isFailed())) {
    await job.retry("failed", { resetAttemptsMade: true });
  } else {
    if (job) await job.remove().catch(() => undefined);
    await enqueueWorkItem(queues, item, trace);
  }
}
