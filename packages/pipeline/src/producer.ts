// The producer side: one BullMQ Queue per registry entry, and enqueue by work item.
import { Queue } from "bullmq";
import type { RedisConnection } from "./connection";
import { SpanKind, injectTraceContext, withSpan, withTraceContext, type Logger, type TraceCarrier } from "@recall/telemetry";
import { fairPriority } from "./fair-share";
import { LANES, laneOf, laneQueueName, type Lane, type PriorityItem } from "./priority";
import { QUEUES, QUEUE_NAMES, isQueueName, jobIdFor, type QueueName, type StagePayload } from "./registry";

export interface QueueSetOptions {
  connection: RedisConnection;
  prefix: string;
  /** Where a queue's connection errors go (a failed add is still a rejected promise for its caller); default: dropped. */
  logger?: Pick<Logger, "warn">;
}

type StageQueues = Record<QueueName, Queue<StagePayload>>;

const READY_BEFORE_CLOSE_MS = 2_000;

/** Each stage's interactive lane by its name, and its background lane under `background` (priority.ts). */
export type QueueSet = StageQueues & { background: StageQueues; connection: RedisConnection; prefix: string; close(): Promise<void> };

export function createQueues({ connection, prefix, logger }: QueueSetOptions): QueueSet {
  const lanes = {} as Record<Lane, StageQueues>;
  // Every queue hears each error of the one shared connection: one line per ten seconds is enough.
  let lastLogged = 0;
  const onError = (queue: string) => (err: Error) => {
    if (Date.now() - lastLogged < 10_000) return;
    lastLogged = Date.now();
    logger?.warn({ queue, err: err.message }, "queue connection error");
  };
  for (const lane of LANES) {
    lanes[lane] = {} as StageQueues;
    for (const name of QUEUE_NAMES) {
      const queue = new Queue<StagePayload>(laneQueueName(name, lane), { connection, prefix });
      queue.on("error", onError(queue.name));
      lanes[lane][name] = queue;
    }
  }
  const all = LANES.flatMap((lane) => QUEUE_NAMES.map((name) => lanes[lane][name]));
  return Object.assign(lanes.interactive, {
    background: lanes.background,
    connection,
    prefix,
    async close() {
      // A queue closed while its connection still initialises drops its listeners, and the initialisation failing
      // later (the shared connection disconnected next) is an 'error' nobody hears, which throws: a process refused
      // at start-up hit it once in CI. So each queue is let finish initialising first, for at most a few seconds.
      let timer: NodeJS.Timeout | undefined;
      const bounded = new Promise<void>((resolve) => (timer = setTimeout(resolve, READY_BEFORE_CLOSE_MS)));
      await Promise.race([Promise.allSettled(all.map((queue) => queue.waitUntilReady())), bounded]);
      clearTimeout(timer);
      await Promise.all(all.map((queue) => queue.close()));
    },
  });
}

/** A stage's queue in one lane. */
export function laneQueue(queues: QueueSet, queue: QueueName, lane: Lane): Queue<StagePayload> {
  return lane === "interactive" ? queues[queue] : queues.background[queue];
}

/** Both lanes of a stage, the item's own first. */
function lanesFor(queues: QueueSet, item: Pick<EnqueueTarget, "queue" | "subjectType" | "payload">): Queue<StagePayload>[] {
  const own = laneOf(item);
  return [own, ...LANES.filter((lane) => lane !== own)].map((lane) => laneQueue(queues, item.queue as QueueName, lane));
}

/**
 * The item's BullMQ job, looked up in its own lane and then in the other one (a job enqueued before
 * lanes existed waits in the interactive lane; looking in both never takes a live job for lost).
 */
export async function findJob(queues: QueueSet, item: Pick<EnqueueTarget, "id" | "queue" | "subjectType" | "payload">) {
  for (const queue of lanesFor(queues, item)) {
    const job = await queue.getJob(jobIdFor(item.id));
    if (job) return job;
  }
  return undefined;
}

/** The state of the item's job (`unknown` when neither lane has one). */
export async function findJobState(queues: QueueSet, item: Pick<EnqueueTarget, "id" | "queue" | "subjectType" | "payload">) {
  for (const queue of lanesFor(queues, item)) {
    const state = await queue.getJobState(jobIdFor(item.id));
    if (state !== "unknown") return state;
  }
  return "unknown";
}

export interface EnqueueTarget {
  id: string;
  queue: string;
  contextId: string;
  subjectType: string;
  subjectId: string;
  /** The work item's payload: background work (priority.ts) says so there. */
  payload?: PriorityItem["payload"];
}

export interface JobOptions {
  /** Holds the job back (a window lingering for more turns; promoteWorkItem releases it early). */
  delayMs?: number;
  /** BullMQ's tries for it; default the stage's. Fewer when a try was spent outside it (a chained stage's). */
  attempts?: number;
}

/**
 * Adds the job for a work item inside a PRODUCER span (`publish {queue}`), whose context the job
 * carries, so the stage's CONSUMER span is its child. `trace` places the span in a known trace
 * (the sweeper and retries join the input's own); by default it is the active one. The job id
 * derives from the work item id, so a repeat is a no-op. `delayMs` holds it back (a window
 * lingering for more turns; promoteWorkItem releases it early). Background work goes to its
 * stage's background lane (priority.ts), ranked by its context's fair share (fair-share.ts).
 */
export async function enqueueWorkItem(
  queues: QueueSet,
  item: EnqueueTarget,
  trace?: TraceCarrier,
  { delayMs = 0, attempts }: JobOptions = {},
): Promise<void> {
  const queue = item.queue as QueueName;
  const def = QUEUES[queue];
  const jobId = jobIdFor(item.id);
  const attributes = {
    "messaging.system": "bullmq",
    "messaging.operation.type": "send",
    "messaging.destination.name": queue,
    "messaging.message.id": jobId,
    "recall.work_item_id": item.id,
  };
  const publish = () =>
    withSpan(
      `publish ${queue}`,
      attributes,
      async () => {
        const payload = def.payload.parse({
          workItemId: item.id,
          contextId: item.contextId,
          subjectType: item.subjectType,
          subjectId: item.subjectId,
          trace: injectTraceContext(),
        });
        const lane = laneOf(item);
        const target = laneQueue(queues, queue, lane);
        // Every background job has a priority (BullMQ runs jobs without one first): its context's fair share.
        const priority = lane === "background" ? await fairShareOf(queues, target, item.contextId) : undefined;
        await target.add(queue, payload, {
          jobId,
          ...(priority ? { priority } : {}),
          ...(delayMs > 0 ? { delay: delayMs } : {}),
          attempts: attempts ?? def.attempts,
          backoff: { type: "recall" },
          removeOnComplete: { age: 3_600, count: 10_000 },
          removeOnFail: { age: 7 * 86_400 },
        });
      },
      SpanKind.PRODUCER,
    );
  await (trace ? withTraceContext(trace, publish) : publish());
}

/** A background job's priority: its context's fair share of the lane (fair-share.ts). */
async function fairShareOf(queues: QueueSet, lane: Queue<StagePayload>, contextId: string): Promise<number> {
  // The shared connection queues no commands while it connects: the queue's own add waits for it the same way.
  await lane.waitUntilReady();
  return fairPriority({ connection: queues.connection, prefix: queues.prefix, name: lane.name }, contextId);
}

/** Runs a delayed job now (a no-op when it is not delayed any more). */
export async function promoteWorkItem(
  queues: QueueSet,
  item: Pick<EnqueueTarget, "id" | "queue" | "subjectType" | "payload">,
): Promise<void> {
  const job = await findJob(queues, item);
  if (job && (await job.isDelayed())) await job.promote().catch(() => undefined);
}

/** Holds a delayed job back `delayMs` from now (a window that just took another turn lingers again). */
export async function redelayWorkItem(
  queues: QueueSet,
  item: Pick<EnqueueTarget, "id" | "queue" | "subjectType" | "payload">,
  delayMs: number,
): Promise<void> {
  const job = await findJob(queues, item);
  if (job && (await job.isDelayed())) await job.changeDelay(delayMs).catch(() => undefined);
}

/**
 * Removes the jobs of deleted work items (an erasure's) from both lanes of their stage. A job running now is
 * locked and stays: it finds its item gone and completes as skipped (ids only, worker-factory.ts). Answers how
 * many jobs were removed.
 */
export async function removeWorkItemJobs(queues: QueueSet, items: readonly { id: string; queue: string }[]): Promise<number> {
  let removed = 0;
  for (const item of items) {
    if (!isQueueName(item.queue)) continue;
    for (const lane of LANES)
      removed += await laneQueue(queues, item.queue, lane)
        .remove(jobIdFor(item.id))
        .catch(() => 0);
  }
  return removed;
}

/** What enqueueing after a commit needs: the queues, and where to say that Redis did not take a job. */
export interface Producer {
  queues: QueueSet;
  logger: Logger;
}

/** How long ingest waits for Redis to take a job before leaving it to the sweeper. */
const ENQUEUE_WAIT_MS = 3_000;

/**
 * Enqueues a work item already stored in Postgres; answers false when Redis did not take it in
 * time (down, or a cluster without a majority). The item stays `queued` and the workers' sweeper
 * (requeueLostJobs) enqueues it later: accepted work is never lost, and a late add that still
 * lands is harmless, the job id being the work item's.
 */
export async function enqueueOrLeaveForSweeper(
  deps: Producer,
  item: EnqueueTarget,
  { trace, ...job }: { trace?: TraceCarrier } & JobOptions = {},
): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not take the job within ${ENQUEUE_WAIT_MS} ms`)), ENQUEUE_WAIT_MS);
  });
  try {
    await Promise.race([enqueueWorkItem(deps.queues, item, trace, job), timeout]);
    return true;
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message, workItemId: item.id, queue: item.queue }, "enqueue failed; the sweeper will queue it");
    return false;
  } finally {
    clearTimeout(timer);
  }
}
