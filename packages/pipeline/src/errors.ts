// Few, named errors. A worker classifies every failure into one error class that
// operators see on the work item and its attempt records.
import { DelayedError, RateLimitError, UnrecoverableError, WaitingChildrenError, WaitingError } from "bullmq";
import { z } from "zod";
import { ClassifiedError, ServiceError, StageFailure, isClassifiedError } from "@recall/contracts";
import { isDatabaseUnavailable, type ErrorClass } from "@recall/db";

/** A failure with a known class. `retryable: false` means retrying the same input cannot help. */
export class WorkError extends ClassifiedError {
  override name = "WorkError";
  constructor(
    readonly errorClass: ErrorClass,
    message: string,
    readonly retryable: boolean,
    override readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** Budget overruns carry class `budget` and are never retried: the same input costs the same. */
export class WorkTimeoutError extends WorkError {
  override name = "WorkTimeoutError";
  constructor(limitMs: number) {
    super("budget", `work item exceeded its wall-time budget of ${limitMs} ms`, false);
  }
}

/**
 * An attempt whose process stopped (killed, out of memory, a lost host) without recording an
 * outcome; the sweeper or the item's next attempt closes it. Class `abandoned`,
 * retryable, and the message always starts with "abandoned:".
 */
export class AbandonedAttemptError extends WorkError {
  override name = "AbandonedAttemptError";
  constructor(reason: string) {
    super("abandoned", `abandoned: ${reason}`, true);
  }
}

/**
 * A stage stopped by its worker's shutdown (SIGTERM) before it finished: its attempt is closed as
 * abandoned and its job handed back to the queue, without spending a retry.
 */
export class HandBackError extends AbandonedAttemptError {
  override name = "HandBackError";
  constructor(reason: string) {
    super(`handed back at shutdown (${reason}): the worker stopped before this attempt finished`);
  }
}

export interface Classified {
  errorClass: ErrorClass;
  retryable: boolean;
  message: string;
}

export function classifyError(err: unknown): Classified {
  const e = failureCause(err);
  if (isClassifiedError(e)) return { errorClass: e.errorClass, retryable: e.retryable, message: e.message };
  if (e instanceof UnrecoverableError || e instanceof z.ZodError) return { errorClass: "validation", retryable: false, message: e.message };
  return { errorClass: "internal", retryable: true, message: e instanceof Error ? e.message : String(e) };
}

/**
 * Whether a failure ends its item: no retry can fix it, or BullMQ gives up after this try. A database outage never
 * makes a try the last: the job waits it out (runThroughOutages).
 */
export function isFinalFailure(err: unknown, lastTry: boolean): boolean {
  return !classifyError(err).retryable || (lastTry && !isDatabaseUnavailable(err));
}

/** The error a StageFailure carries (what happened), or the error itself. */
export function failureCause(err: unknown): unknown {
  return err instanceof StageFailure ? err.cause : err;
}

/** Model tokens a failed attempt had spent, when the stage said so. */
export function tokensSpent(err: unknown): number | undefined {
  return err instanceof StageFailure ? err.tokensUsed : undefined;
}

/**
 * What a failed job leaves in Redis (`failedReason`, `stacktrace`, kept for days): its class and work item id, never
 * the failure's message, which can quote an input (a model's refusal, a rule's "no rule reads …") that an erasure
 * must be able to remove (docs/erasure.md). The message stays on the item's attempt in Postgres, which erasure deletes.
 */
export class JobFailure extends ServiceError {
  override name = "JobFailure";
  constructor(
    label: string,
    override readonly cause: unknown,
    readonly retryAfterMs?: number,
  ) {
    super(label);
  }
}

/** BullMQ's own signals (delay, wait, rate limit) pass unchanged; any other failure becomes ids only. */
export function jobFailure(err: unknown, workItemId: string): Error {
  const control = [DelayedError, WaitingError, WaitingChildrenError, RateLimitError];
  if (control.some((kind) => err instanceof kind)) return err as Error;
  const label = `${classifyError(err).errorClass}: work item ${workItemId}`;
  if (err instanceof UnrecoverableError) return Object.assign(new UnrecoverableError(label), { cause: err });
  return new JobFailure(label, err, retryAfterOf(err));
}

/** The wait a provider asked for before the next try, if any. */
export function retryAfterOf(err: unknown): number | undefined {
  if (err instanceof JobFailure) return err.retryAfterMs;
  const e = failureCause(err);
  return isClassifiedError(e) && e.retryAfterMs !== undefined && e.retryAfterMs > 0 ? e.retryAfterMs : undefined;
}
