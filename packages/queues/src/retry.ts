// Operator retry: the input was kept, so a failed or dead work item starts again from it.
import type { Db, WorkItem } from "@recall/db";
import { enqueueWorkItem, type QueueSet } from "./producer";
import { isQueueName, jobIdFor } from "./registry";

export class NotRetryableError extends Error {
  override name = "NotRetryableError";
}

/** Marks the item queued and retries its kept BullMQ job, or adds it again under the same job id. */
export async function retryWorkItem(db: Db, queues: QueueSet, item: WorkItem): Promise<WorkItem> {
  if (item.status !== "dead" && item.status !== "failed") {
    throw new NotRetryableError(`work item is ${item.status}; only failed or dead work can be retried`);
  }
  if (!isQueueName(item.queue)) throw new NotRetryableError(`unknown queue ${item.queue}`);
  const updated = await db.workItem.update({
    where: { id: item.id },
    data: { status: "queued", errorClass: null, errorMessage: null, finishedAt: null },
  });
  const job = await queues[item.queue].getJob(jobIdFor(item.id));
  if (job && (await job.isFailed())) {
    await job.retry("failed", { resetAttemptsMade: true });
  } else {
    if (job) await job.remove().catch(() => undefined);
    await enqueueWorkItem(queues, updated);
  }
  return updated;
}
