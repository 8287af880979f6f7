// One worker factory for every queue: parses the payload, keeps the work item and
// its attempt records, enforces the wall-time budget, classifies failures, chains
// the next stage. BullMQ owns retries; inputs that can never succeed end as `dead`.
import { Worker, UnrecoverableError, type Job } from "bullmq";
import type { RedisConnection } from "./connection";
import { isDatabaseUnavailable, transaction, type Db, type Tx, type WorkItem } from "@recall/db";
import {
  SpanKind,
  currentTraceId,
  jobsTotal,
  scrubSecrets,
  stageDuration,
  withSpan,
  withTraceContext,
  workItemsFinished,
  type Logger,
} from "@recall/telemetry";
import { OutageBackoff, runThroughOutages } from "./database-outage";
import { WorkTimeoutError, classifyError, tokensSpent } from "./errors";
import { enqueueOrLeaveForSweeper, type QueueSet } from "./producer";
import { requeueWorkItem } from "./retry";
import { QUEUES, backoffDelay, type QueueName, type StagePayload } from "./registry";
import { ensureWorkItem, markRunning, recordOutcome } from "./work-items";

export interface StageContext {
  item: WorkItem;
  payload: StagePayload;
  attempt: number;
  signal: AbortSignal;
  logger: Logger;
}

export interface StageResult {
  /**
   * `waiting`: the processor handed its item on (a turn to its extraction window) and recorded
   * that itself, in the same transaction; the factory then records nothing and chains nothing.
   */
  status: "succeeded" | "skipped" | "waiting";
  tokensUsed?: number;
  /** false stops the chain here (the stage found nothing for the next one to do). */
  next?: boolean;
}

export type StageProcessor = (ctx: StageContext) => Promise<StageResult>;

export interface StageWorkerOptions {
  queue: QueueName;
  process: StageProcessor;
  db: Db;
  queues: QueueSet;
  connection: RedisConnection;
  prefix: string;
  logger: Logger;
  concurrency?: number;
  wallBudgetMs: number;
  onCompleted?: (item: WorkItem) => void;
}

export function createStageWorker(options: StageWorkerOptions): Worker<StagePayload> {
  const { queue, connection, prefix, concurrency = 4 } = options;
  const outage = new OutageBackoff();
  return new Worker<StagePayload>(
    queue,
    (job, token) => runThroughOutages({ job, token, outage, logger: options.logger }, () => runJob(options, job)),
    {
      connection,
      prefix,
      concurrency,
      settings: { backoffStrategy: (attemptsMade, _type, err) => backoffDelay(queue, attemptsMade, err) },
    },
  );
}

async function runJob(options: StageWorkerOptions, job: Job<StagePayload>): Promise<StageResult> {
  const parsed = QUEUES[options.queue].payload.safeParse(job.data);
  if (!parsed.success) throw new UnrecoverableError(`invalid payload: ${parsed.error.message}`);
  const payload = parsed.data;
  return withTraceContext(payload.trace, () =>
    withSpan(
      `process ${options.queue}`,
      {
        "messaging.system": "bullmq",
        "messaging.operation.type": "process",
        "messaging.destination.name": options.queue,
        "messaging.message.id": job.id ?? "",
        "recall.work_item_id": payload.workItemId,
        "recall.queue": options.queue,
        "recall.attempt": job.attemptsMade + 1,
      },
      () => runStage(options, job, payload),
      SpanKind.CONSUMER,
    ),
  );
}

async function runStage(options: StageWorkerOptions, job: Job<StagePayload>, payload: StagePayload): Promise<StageResult> {
  const { db, queue } = options;
  const item = await db.workItem.findUnique({ where: { id: payload.workItemId } });
  if (!item) throw new UnrecoverableError(`work item ${payload.workItemId} does not exist`);
  // Done already (a repeated delivery), or stopped by an operator: nothing to run.
  if (item.status === "succeeded" || item.status === "cancelled") return { status: "skipped" };
  // Attempt records count across operator retries (which restart BullMQ's own count),
  // so the history of every try is kept; `lastTry` is whether BullMQ will give up after this one.
  const attempt = item.attempts + 1;
  const lastTry = job.attemptsMade + 1 >= (job.opts.attempts ?? item.maxAttempts);
  const logger = options.logger.child({ queue, workItemId: item.id, attempt, traceId: item.traceId });
  const running = await markRunning(db, item.id, attempt, currentTraceId() ?? item.traceId);
  if (!running) return { status: "skipped" };
  const { attemptId } = running;
  const started = performance.now();
  const stopTimer = stageDuration.startTimer({ queue });
  try {
    const result = await withWallBudget(options.wallBudgetMs, (signal) => options.process({ item, payload, attempt, signal, logger }));
    if (result.status === "waiting") return result;
    // The next stage's work item is created in the same transaction that marks this one
    // succeeded: a crash in between can never leave a finished stage with no successor.
    const next = await transaction(db, async (tx) => {
      const first = await recordOutcome(tx, item.id, attemptId, {
        status: "succeeded",
        tokensUsed: result.tokensUsed,
        wallMs: elapsed(started),
      });
      // Another run of this item succeeded first and chained the next stage already.
      if (!first) return undefined;
      return result.next === false ? undefined : ensureNext(tx, queue, item);
    });
    jobsTotal.inc({ queue, outcome: "succeeded", error_class: "" });
    workItemsFinished.inc({ queue, status: "succeeded", error_class: "" });
    stopTimer({ outcome: "succeeded" });
    // The success is committed: a Redis that does not take the next job leaves it `queued` for the sweeper.
    if (next) await chainNext(options, next, logger);
    options.onCompleted?.(item);
    return result;
  } catch (err) {
    stopTimer({ outcome: "failed" });
    const failure = await failAttempt(options, { item, attemptId, lastTry, started, logger }, err);
    // Another run of this item succeeded meanwhile: this late failure changes nothing and is not retried.
    if (!failure) return { status: "skipped" };
    throw failure;
  }
}

interface FailureContext {
  item: WorkItem;
  attemptId: string;
  lastTry: boolean;
  started: number;
  logger: Logger;
}

/**
 * Records the failed attempt and returns the error to throw: the original one when BullMQ should
 * retry; undefined when the item had already succeeded in another run.
 */
async function failAttempt(options: StageWorkerOptions, ctx: FailureContext, err: unknown): Promise<Error | undefined> {
  const { errorClass, retryable, message: raw } = classifyError(err);
  // Stored and shown to API clients: a credential quoted by a failing dependency must not be.
  const message = scrubSecrets(raw);
  // A database outage never makes a try the last: the job waits it out (runThroughOutages).
  const final = !retryable || (ctx.lastTry && !isDatabaseUnavailable(err));
  const tokensUsed = tokensSpent(err);
  const recorded = await recordOutcome(options.db, ctx.item.id, ctx.attemptId, {
    status: final ? "dead" : "failed",
    errorClass,
    errorMessage: message,
    tokensUsed,
    wallMs: elapsed(ctx.started),
  });
  if (!recorded) {
    ctx.logger.warn({ errorClass, err: message }, "a duplicate run failed after the item succeeded; the success stands");
    return undefined;
  }
  jobsTotal.inc({ queue: options.queue, outcome: final ? "dead" : "failed", error_class: errorClass });
  if (final) workItemsFinished.inc({ queue: options.queue, status: "dead", error_class: errorClass });
  ctx.logger.warn({ errorClass, final, err: message }, "stage attempt failed");
  if (!retryable) return new UnrecoverableError(`${errorClass}: ${message}`);
  return err instanceof Error ? err : new Error(message);
}

async function chainNext(options: StageWorkerOptions, next: { item: WorkItem; rerun: boolean }, logger: Logger): Promise<void> {
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
 * The next stage's work item, created or found. Found finished, failed or cancelled, this stage
 * ran again (an operator re-extracted): its new output is the next stage's input, so that stage
 * is queued to run again too (`rerun`: its old job must give way to a new one).
 */
async function ensureNext(tx: Tx, queue: QueueName, item: WorkItem): Promise<{ item: WorkItem; rerun: boolean } | undefined> {
  const next = (QUEUES[queue] as { next?: QueueName }).next;
  if (!next) return undefined;
  const nextItem = await ensureWorkItem(tx, {
    contextId: item.contextId,
    queue: next,
    subjectType: item.subjectType as StagePayload["subjectType"],
    subjectId: item.subjectId,
    traceId: item.traceId,
  });
  if (nextItem.status === "queued" || nextItem.status === "running") return { item: nextItem, rerun: false };
  const reset = await tx.workItem.update({
    where: { id: nextItem.id },
    data: { status: "queued", errorClass: null, errorMessage: null, finishedAt: null },
  });
  return { item: reset, rerun: true };
}

async function withWallBudget<T>(limitMs: number, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    // Reject before aborting: a processor that settles on abort must not win the race.
    timer = setTimeout(() => {
      reject(new WorkTimeoutError(limitMs));
      controller.abort();
    }, limitMs);
  });
  try {
    return await Promise.race([fn(controller.signal), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}
