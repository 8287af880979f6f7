// Work whose job Redis lost. Postgres is the record of what must run; Redis only holds the
// jobs. A work item Postgres says is `queued`, or `failed` and waiting for BullMQ's retry, is
// only ever moved on by its job: when Redis no longer holds that job live (Redis was flushed,
// restarted without persistence, or down when the item was created or retried), the sweeper
// puts it back on its queue. Job ids derive from work item ids, so a job still there is never
// doubled; a `failed` item is claimed back to `queued` first, so of several sweepers one acts.
import type { Db, WorkItem } from "@recall/db";
import { lostJobsRequeued, type Logger } from "@recall/telemetry";
import { itemTrace } from "./item-trace";
import { enqueueWorkItem, findJobState, type QueueSet } from "./producer";
import { isQueueName } from "./registry";
import { requeueWorkItem } from "./retry";
import { reclaimFailedWorkItem } from "./work-state";

/**
 * A job in one of these states will still run (or is running) and record its own outcome; a
 * stalled active job is BullMQ's to move back to waiting, or to failed, which is not live.
 */
export const LIVE_JOB_STATES: ReadonlySet<string> = new Set(["active", "waiting", "delayed", "prioritized", "waiting-children"]);

export interface LostJobsOptions {
  db: Db;
  queues: QueueSet;
  logger: Logger;
  /** Items younger than this are left to the code that just queued them. */
  olderThanMs: number;
  batchSize?: number;
}

/** Puts back every queued or retry-waiting item whose job is gone; returns their ids. */
export async function requeueLostJobs(options: LostJobsOptions): Promise<string[]> {
  const { db, olderThanMs, batchSize = 500 } = options;
  const cutoff = new Date(Date.now() - olderThanMs);
  const candidates = await db.workItem.findMany({
    where: {
      OR: [
        { status: "queued", createdAt: { lt: cutoff } },
        { status: "failed", finishedAt: { lt: cutoff } },
      ],
    },
    orderBy: { createdAt: "asc" },
    take: batchSize,
  });
  const requeued: string[] = [];
  for (const item of candidates) if (await requeueIfLost(options, item)) requeued.push(item.id);
  return requeued;
}

async function requeueIfLost({ db, queues, logger }: LostJobsOptions, item: WorkItem): Promise<boolean> {
  if (!isQueueName(item.queue)) return false;
  const state = await findJobState(queues, item);
  if (LIVE_JOB_STATES.has(state)) return false;
  if (item.status === "failed") {
    // Claimed while still the failure this sweep read: a worker or another sweeper may have moved it on.
    if (!(await reclaimFailedWorkItem(db, item))) return false;
  }
  const trace = itemTrace(item);
  // A finished job under the item's id would make a plain add a no-op: it is retried or replaced.
  if (state === "unknown") await enqueueWorkItem(queues, item, trace);
  else await requeueWorkItem(queues, item, trace);
  lostJobsRequeued.inc({ queue: item.queue, status: item.status });
  logger.warn({ workItemId: item.id, queue: item.queue, status: item.status, jobState: state }, "queued work whose job was lost");
  return true;
}
