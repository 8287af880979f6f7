// What starts the next stage once a stage's success is committed: its successor's item (created with the success),
// queued, requeued when it ran before, or run in this job when this process runs that stage (chained,
// docs/guarantees.md). The worker factory records the success; this module takes it from there.
import type { WorkItem } from "@recall/db";
import { SpanKind, workItemsFinished, withSpan, type Logger, type Span } from "@recall/telemetry";
import { ChainGuard, chainable } from "./chain-guard";
import type { HandBackError } from "./errors";
import { enqueueOrLeaveForSweeper } from "./producer";
import { QUEUES, type QueueName, type StagePayload } from "./registry";
import { requeueWorkItem } from "./retry";
import { DEFAULT_LOCK_MS, type StageResult, type StageWorkerOptions } from "./stage-handler";
import { successorOf, type NewWorkItem, type NextItem } from "./work-state";

/** How a stage run came to this process: its own BullMQ job, or the job of the stage before it (chained). */
export interface Delivery {
  /** Aborted by a shutdown (the worker's cancelAllJobs). */
  signal: AbortSignal | undefined;
  /** Whether BullMQ gives up after this attempt. */
  lastTry(item: WorkItem): boolean;
  /** The item names no work item of this database: what to throw. */
  notOurs(options: StageWorkerOptions, payload: StagePayload): Promise<Error>;
  /** A shutdown stopped the attempt (closed as abandoned, the item queued again): gives the work back, answers what to throw. */
  handBack(err: HandBackError): Promise<Error>;
  /** The attempt was recorded as failed (`final`: dead); the error is about to be thrown. */
  failed?(err: Error, final: boolean): Promise<void>;
}

export interface AttemptOutcome {
  result: StageResult;
  /** The next stage's item, created queued with this success, to run in this job. */
  chained?: { item: WorkItem; logger: Logger };
}

/**
 * Runs an interactive turn's next stage in the job of the stage before it (docs/guarantees.md, Chained stages), as its
 * own attempt: claimed, recorded and finished through work-state like any other, under a span of its own. Its job
 * is queued first, held back for as long as a job's lock lasts (the guard): a process killed mid-run leaves the
 * stage to that job, as BullMQ runs a stalled job again; a run that ends takes it away again, or, having failed,
 * leaves the retry to it with the attempts left.
 */
export async function runChained(
  options: StageWorkerOptions,
  item: WorkItem,
  chainedRun: { signal: AbortSignal | undefined; logger: Logger; runAttempt: RunAttempt },
): Promise<void> {
  const { signal, logger, runAttempt } = chainedRun;
  const queue = item.queue as QueueName;
  const process = options.chain?.[queue];
  if (!process) return;
  // Shutting down: the stage goes to its queue, for whichever process takes it.
  if (signal?.aborted) return void (await enqueueOrLeaveForSweeper({ queues: options.queues, logger }, item));
  const guard = await ChainGuard.hold({ queues: options.queues, logger }, item, options.lockDurationMs ?? DEFAULT_LOCK_MS);
  // Redis did not take the guard: the item stays queued for the sweeper, as any successor Redis did not take.
  if (!guard) return;
  const payload = QUEUES[queue].payload.parse({
    workItemId: item.id,
    contextId: item.contextId,
    subjectType: item.subjectType,
    subjectId: item.subjectId,
  });
  const delivery: Delivery = {
    signal,
    lastTry: (claimed) => claimed.maxAttempts <= 1,
    notOurs: async () => new Error(`chained work item ${item.id} is not in this database`),
    handBack: async (err) => {
      await guard.runNow();
      return err;
    },
    failed: (err, final) => (final ? guard.release() : guard.retryLater(err)),
  };
  let chained: AttemptOutcome["chained"];
  try {
    ({ chained } = await withSpan<AttemptOutcome>(
      `process ${queue}`,
      {
        "recall.chained": 1,
        "recall.work_item_id": item.id,
        "recall.queue": queue,
        "recall.context_id": item.contextId,
        "recall.subject_type": item.subjectType,
        "recall.subject_id": item.subjectId,
      },
      (span) => runAttempt({ ...options, queue, process }, delivery, payload, span),
      SpanKind.INTERNAL,
    ));
    await guard.release();
  } catch (err) {
    // The attempt's outcome is recorded and its guard handled (retry, hand-back, dead); anything that failed before
    // an attempt was recorded (the database unreachable) leaves the stage to its guard, as it stands.
    logger.warn({ err: (err as Error).message, queue, workItemId: item.id }, "chained stage did not finish; its own job takes it");
  } finally {
    guard.stop();
  }
  if (chained) await runChained(options, chained.item, { signal, logger: chained.logger, runAttempt });
}

async function queueNext(options: StageWorkerOptions, next: NextItem, logger: Logger): Promise<void> {
  if (!next.rerun) {
    await enqueueOrLeaveForSweeper({ queues: options.queues, logger }, next.item);
    return;
  }
  try {
    await requeueWorkItem(options.queues, next.item);
  } catch (err) {
    logger.warn({ err: (err as Error).message, workItemId: next.item.id }, "requeue failed; the sweeper will queue it");
  }
}

/**
 * The next stage's work item, created with the success or found. Found finished, failed or cancelled,
 * this stage ran again (an operator re-extracted): its new output is the next stage's input, so the
 * finish resets that stage to run again too (`rerun`: its old job must give way to a new one).
 */
export function successorIn(queue: QueueName, item: WorkItem): NewWorkItem | undefined {
  const next = (QUEUES[queue] as { next?: QueueName }).next;
  return next && successorOf(item, next);
}

/** One attempt of a stage as the worker factory runs it: a chained stage runs through it too. */
export type RunAttempt = (options: StageWorkerOptions, delivery: Delivery, payload: StagePayload, span: Span) => Promise<AttemptOutcome>;

/**
 * The next stage, once this one's success is committed: created done, it is counted finished (no job); when this
 * process runs it, the item is answered to run in this job; otherwise it is queued. A Redis that does not take the
 * next job leaves it `queued` for the sweeper.
 */
export async function startNext(
  options: StageWorkerOptions,
  item: WorkItem,
  next: NextItem | undefined,
  logger: Logger,
): Promise<WorkItem | undefined> {
  if (next?.item.status === "succeeded") {
    // Created done (nothing for it to do): finished like any other, with no job.
    workItemsFinished.inc({ queue: next.item.queue, status: "succeeded", error_class: "" });
  } else if (next && !next.rerun && options.chain?.[next.item.queue as QueueName] && chainable(item)) {
    return next.item;
  } else if (next) await queueNext(options, next, logger);
  return undefined;
}
