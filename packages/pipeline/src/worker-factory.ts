// One worker factory for every queue: parses the payload, claims the work item (work-state/),
// runs the stage against its wall-time budget, records its outcome with the stage's own writes
// in one transaction, classifies failures; the next stage starts from chain-next.ts. BullMQ owns retries; inputs
// that can never succeed end as `dead`.
import { hostname } from "node:os";
import { DelayedError, Worker, UnrecoverableError, WaitingError, type Job } from "bullmq";
import { withTenant, type Tx, type WorkItem } from "@recall/db";
import {
  SpanKind,
  currentTraceId,
  jobsTotal,
  scrubSecrets,
  stageDuration,
  withSpan,
  withTraceContext,
  withModelCallLedger,
  workItemsFinished,
  type LedgerEntry,
  type Logger,
  type Span,
} from "@recall/telemetry";
import { runChained, startNext, successorIn, type AttemptOutcome, type Delivery } from "./chain-next";
import { OutageBackoff, runThroughOutages } from "./database-outage";
import { HandBackError, WorkTimeoutError, classifyError, isFinalFailure, jobFailure, tokensSpent } from "./errors";
import { enqueueOrLeaveForSweeper } from "./producer";
import { fairShareStarted } from "./fair-share";
import { laneQueueName } from "./priority";
import { QUEUES, backoffDelay, type StagePayload } from "./registry";
import { DEFAULT_LOCK_MS, stageSuccess, type StageHandler, type StageResult, type StageWorkerOptions } from "./stage-handler";
import {
  claimWorkItem,
  subjectErased,
  failWorkItem,
  finishGroupTurns,
  finishWorkItem,
  handBackWorkItem,
  recordModelCalls,
  type CallingAttempt,
  type ClaimedWork,
} from "./work-state";

/**
 * The reason a shutting-down worker cancels its jobs with (`worker.cancelAllJobs(HAND_BACK)`): each
 * running stage stops, its attempt is closed as abandoned and its job goes back to waiting.
 */
export const HAND_BACK = "recall:hand-back";

/** This process as BullMQ records it on the jobs it runs: host and pid. */
export function workerName(pid = process.pid): string {
  return `${hostname()}:${pid}`;
}

export function createStageWorker(options: StageWorkerOptions): Worker<StagePayload> {
  const {
    queue,
    lane = "interactive",
    connection,
    prefix,
    concurrency = 4,
    lockDurationMs = DEFAULT_LOCK_MS,
    name = workerName(),
  } = options;
  const outage = new OutageBackoff();
  // Three parameters: BullMQ passes the signal that cancelAllJobs aborts only to a processor that declares it.
  return new Worker<StagePayload>(
    laneQueueName(queue, lane),
    (job, token, signal) =>
      runThroughOutages({ job, token, outage, logger: options.logger }, () => runJob(options, { job, token, signal })).then(
        jobResult,
        (err: unknown) => {
          throw jobFailure(err, String((job.data as Partial<StagePayload>).workItemId ?? job.id));
        },
      ),
    {
      connection,
      prefix,
      concurrency,
      name,
      lockDuration: lockDurationMs,
      stalledInterval: lockDurationMs,
      settings: { backoffStrategy: (attemptsMade, _type, err) => backoffDelay(queue, attemptsMade, err) },
    },
  );
}

/**
 * What a finished job keeps in Redis as its return value (an hour, docs/erasure.md): the status only. A stage's
 * output can quote its input (a rule's "needs a model: no rule reads …"); it lives on the work item in Postgres.
 */
function jobResult(result: StageResult): Pick<StageResult, "status"> {
  return { status: result.status };
}

/** A job as BullMQ hands it to the processor: its lock token, and the signal a shutdown aborts. */
interface JobDelivery {
  job: Job<StagePayload>;
  token: string | undefined;
  signal: AbortSignal | undefined;
}

function jobDelivery({ job, token, signal }: JobDelivery): Delivery {
  return {
    signal,
    lastTry: (item) => job.attemptsMade + 1 >= (job.opts.attempts ?? item.maxAttempts),
    notOurs: (options, payload) => leaveForOwner(options, job, token, payload),
    async handBack(err) {
      await job.moveToWait(token);
      return new WaitingError(err.message);
    },
  };
}

async function runJob(options: StageWorkerOptions, delivered: JobDelivery): Promise<StageResult> {
  const { job } = delivered;
  const delivery = jobDelivery(delivered);
  const parsed = QUEUES[options.queue].payload.safeParse(job.data);
  if (!parsed.success) throw new UnrecoverableError(`invalid payload: ${parsed.error.message}`);
  const payload = parsed.data;
  // A retry or a stalled job starting again was counted once, when it was added.
  if (options.lane === "background" && job.attemptsStarted <= 1) {
    const { connection, prefix, queue } = options;
    await fairShareStarted({ connection, prefix, name: laneQueueName(queue, "background") }, payload.contextId);
  }
  // The whole job runs as its context: the claim by id finds the item only if it is that context's.
  return withTenant(payload.contextId, () =>
    withTraceContext(payload.trace, () =>
      withSpan(
        `process ${options.queue}`,
        {
          "messaging.system": "bullmq",
          "messaging.operation.type": "process",
          "messaging.destination.name": options.queue,
          "messaging.message.id": job.id ?? "",
          "recall.work_item_id": payload.workItemId,
          "recall.queue": options.queue,
          "recall.context_id": payload.contextId,
          "recall.subject_type": payload.subjectType,
          "recall.subject_id": payload.subjectId,
        },
        (span) => runStage(options, delivery, payload, span),
        SpanKind.CONSUMER,
      ),
    ),
  );
}

function handlerOf(process: StageWorkerOptions["process"]): StageHandler<unknown> {
  return typeof process === "function" ? { process: (ctx) => process({ ...ctx, input: undefined }) } : process;
}

/** One attempt of the stage; then, when it handed its successor to this process, that stage's (chained). */
async function runStage(options: StageWorkerOptions, delivery: Delivery, payload: StagePayload, span: Span): Promise<StageResult> {
  const { result, chained } = await runAttempt(options, delivery, payload, span);
  if (chained) await runChained(options, chained.item, { signal: delivery.signal, logger: chained.logger, runAttempt });
  return result;
}

async function runAttempt(options: StageWorkerOptions, delivery: Delivery, payload: StagePayload, span: Span): Promise<AttemptOutcome> {
  const { db, queue } = options;
  const handler = handlerOf(options.process);
  const load = handler.load && ((tx: Tx, claimed: ClaimedWork) => handler.load!(tx, claimed));
  const claim = await claimWorkItem(db, { workItemId: payload.workItemId, traceId: currentTraceId() ?? null }, load);
  if (!claim) {
    // Its subject was erased (docs/erasure.md) and its item with it: nothing is left to run.
    if (await subjectErased(db, payload)) return { result: { status: "skipped" } };
    throw await delivery.notOurs(options, payload);
  }
  // Done already (a repeated delivery), handed to a window that finishes it (a turn's extraction whose worker
  // died after the hand-over), or stopped by an operator: nothing to run.
  if (!claim.claimed) return { result: { status: "skipped" } };
  const { item, attemptId, input } = claim;
  // Attempt records count across operator retries (which restart BullMQ's own count),
  // so the history of every try is kept; `lastTry` is whether BullMQ will give up after this one.
  const attempt = item.attempts;
  span.setAttribute("recall.attempt", attempt);
  const lastTry = delivery.lastTry(item);
  const logger = options.logger.child({ queue, workItemId: item.id, attempt, traceId: item.traceId });
  const started = performance.now();
  const stopTimer = stageDuration.startTimer({ queue });
  const running: RunningAttempt = { item, attemptId, lastTry, started, logger };
  const calls: LedgerEntry[] = [];
  try {
    const result = await withWallBudget(
      options.wallBudgetMs,
      (signal) => withModelCallLedger(calls, () => handler.process({ item, claim, input, payload, attempt, lastTry, signal, logger })),
      delivery.signal,
    );
    if (result.status === "waiting") return { result };
    const next = await succeed(options, running, result);
    stopTimer({ outcome: "succeeded" });
    return { result, chained: next && { item: next, logger } };
  } catch (err) {
    stopTimer({ outcome: "failed" });
    if (err instanceof HandBackError) throw await handJobBack(options, delivery, running, err);
    const thrown = await failAttempt(options, running, err, handler.onDead?.bind(handler));
    // Another run of this item succeeded meanwhile: this late failure changes nothing and is not retried.
    if (!thrown) return { result: { status: "skipped" } };
    await delivery.failed?.(thrown, thrown instanceof UnrecoverableError);
    throw thrown;
  } finally {
    await keepModelCalls(options, { contextId: item.contextId, workItemId: item.id, attempt, queue }, calls, logger);
  }
}

/** The attempt's model calls, for the usage API; a failure to keep them is logged (the metrics counted them anyway). */
async function keepModelCalls(options: StageWorkerOptions, attempt: CallingAttempt, calls: LedgerEntry[], logger: Logger) {
  try {
    await recordModelCalls(options.db, attempt, calls);
  } catch (err) {
    logger.warn({ err: (err as Error).message, calls: calls.length }, "model calls not kept for usage");
  }
}

/** How long a job for a work item this database does not hold waits before a worker looks again. */
const NOT_OURS_DELAY_MS = 30_000;
/** Older than this, nobody has taken it: its database was reset or dropped, and it fails as before. */
const NOT_OURS_GIVE_UP_MS = 3_600_000;

/**
 * The job names a work item this database does not hold: another deployment's job on a shared
 * queue prefix (the prefix claim, prefix-claim.ts, stops that at start-up; this is defence in
 * depth), or a job left from a database that was reset. Failing it would drop the owner's work
 * (until its sweeper found it), so it is put back delayed, without spending an attempt, for the
 * worker whose database holds it; only a job nobody took for an hour fails.
 */
async function leaveForOwner(
  options: StageWorkerOptions,
  job: Job<StagePayload>,
  token: string | undefined,
  payload: StagePayload,
): Promise<Error> {
  if (Date.now() - job.timestamp > NOT_OURS_GIVE_UP_MS) return new UnrecoverableError(`work item ${payload.workItemId} does not exist`);
  options.logger.warn(
    { queue: options.queue, workItemId: payload.workItemId, jobId: job.id },
    "job for a work item not in this database; left for its owner",
  );
  await job.moveToDelayed(Date.now() + NOT_OURS_DELAY_MS, token);
  return new DelayedError(`work item ${payload.workItemId} is not in this database; left for the deployment that holds it`);
}

/**
 * Records the success with the stage's writes and the next stage's item, in one transaction: a crash
 * can never leave a finished stage without its output or its successor. Then queues the successor.
 */
async function succeed(
  options: StageWorkerOptions,
  ctx: RunningAttempt,
  result: Exclude<StageResult, { status: "waiting" }>,
): Promise<WorkItem | undefined> {
  const { queue, faultPoint = () => Promise.resolve() } = options;
  const success = stageSuccess(result);
  const { group } = success;
  // The group's turns that left it (their stage or writes failed): set by the last run of the transaction.
  let left: WorkItem[] = [];
  if (!success.write && !group) await faultPoint();
  const finished = await finishWorkItem(
    options.db,
    {
      workItemId: ctx.item.id,
      attemptId: ctx.attemptId,
      tokensUsed: success.tokensUsed,
      wallMs: elapsed(ctx.started),
      result: success.output,
      next: success.next === false ? undefined : successorIn(queue, ctx.item),
      nextDone: success.nextDone,
      status: result.status === "awaiting_model" ? "awaiting_model" : "succeeded",
    },
    (success.write || group) &&
      (async (tx) => {
        await success.write?.(tx);
        left = group ? await finishGroupTurns(tx, group, ctx.logger) : [];
        await faultPoint();
      }),
  );
  const status = result.status === "awaiting_model" ? "awaiting_model" : "succeeded";
  jobsTotal.inc({ queue, outcome: status, error_class: "" });
  workItemsFinished.inc({ queue, status, error_class: "" });
  // Another run of this item succeeded first and chained the next stage already.
  if (!finished.first) ctx.logger.warn("a duplicate run succeeded after the item had; the first success stands");
  else {
    for (const item of left) await enqueueOrLeaveForSweeper({ queues: options.queues, logger: ctx.logger }, item);
    await success.after?.();
  }
  await faultPoint();
  // The success is committed: the next stage starts (chain-next.ts).
  return startNext(options, ctx.item, finished.next, ctx.logger);
}

/**
 * The worker is shutting down and this stage did not finish in time: its attempt is closed as abandoned, the
 * item is queued again and the job goes back to waiting, without spending one of BullMQ's attempts. Whatever
 * the stage was writing rolls back with its transaction (or, committed already, is found by the next run).
 */
async function handJobBack(options: StageWorkerOptions, delivery: Delivery, ctx: RunningAttempt, err: HandBackError): Promise<Error> {
  await handBackWorkItem(options.db, { workItemId: ctx.item.id, attemptId: ctx.attemptId }, err, elapsed(ctx.started));
  jobsTotal.inc({ queue: options.queue, outcome: "failed", error_class: err.errorClass });
  ctx.logger.warn({ err: err.message }, "stage handed back at shutdown");
  return delivery.handBack(err);
}

/** The claimed attempt a stage runs in, which its success, failure or hand-back is recorded against. */
interface RunningAttempt {
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
async function failAttempt(
  options: StageWorkerOptions,
  ctx: RunningAttempt,
  err: unknown,
  onDead?: StageHandler<unknown>["onDead"],
): Promise<Error | undefined> {
  const { errorClass, retryable, message: raw } = classifyError(err);
  // Stored and shown to API clients: a credential quoted by a failing dependency must not be.
  const message = scrubSecrets(raw);
  const final = isFinalFailure(err, ctx.lastTry);
  const tokensUsed = tokensSpent(err);
  const recorded = await failWorkItem(options.db, {
    workItemId: ctx.item.id,
    attemptId: ctx.attemptId,
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
  if (final) await onDead?.(ctx.item, `${errorClass}: ${message}`);
  ctx.logger.warn({ errorClass, final, err: message }, "stage attempt failed");
  // The cause travels with it, so the stage's span can say what failed without quoting the message (recordError).
  if (!retryable) return Object.assign(new UnrecoverableError(`${errorClass}: ${message}`), { cause: err });
  return err instanceof Error ? err : new Error(message);
}

/**
 * Runs the stage against its wall-time budget and the worker's shutdown (`outer` aborted with HAND_BACK):
 * whichever comes first rejects at once and aborts the stage's own signal.
 */
async function withWallBudget<T>(limitMs: number, fn: (signal: AbortSignal) => Promise<T>, outer?: AbortSignal): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<never>((_, reject) => {
    // Reject before aborting: a processor that settles on abort must not win the race.
    const fail = (err: Error) => {
      reject(err);
      controller.abort();
    };
    timer = setTimeout(() => fail(new WorkTimeoutError(limitMs)), limitMs);
    onAbort = () => fail(new HandBackError(String(outer?.reason ?? "worker shutting down")));
    if (outer?.aborted) onAbort();
    else outer?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([fn(controller.signal), stop]);
  } finally {
    clearTimeout(timer);
    if (onAbort) outer?.removeEventListener("abort", onAbort);
  }
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}
