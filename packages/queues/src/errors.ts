// Few, named errors. A worker classifies every failure into one error class that
// operators see on the work item and its attempt records.
import { UnrecoverableError } from "bullmq";
import type { ErrorClass } from "@recall/db";

/** A failure with a known class. `retryable: false` means retrying the same input cannot help. */
export class WorkError extends Error {
  override name = "WorkError";
  constructor(
    readonly errorClass: ErrorClass,
    message: string,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
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

// Errors thrown by other packages are classified by name, so this package need not import them.
// A model's unusable answer reaches the queue only after the repair retry and any escalation
// failed; it is the provider's fault, not the input's, and a later attempt may well succeed.
const CLASS_BY_NAME: Record<string, { errorClass: ErrorClass; retryable: boolean }> = {
  ProviderError: { errorClass: "provider", retryable: true },
  MalformedOutputError: { errorClass: "provider", retryable: true },
  OutputValidationError: { errorClass: "provider", retryable: true },
  BudgetExceededError: { errorClass: "budget", retryable: false },
  NoProviderError: { errorClass: "no_provider", retryable: false },
  ZodError: { errorClass: "validation", retryable: false },
};

export interface Classified {
  errorClass: ErrorClass;
  retryable: boolean;
  message: string;
}

export function classifyError(err: unknown): Classified {
  const e = err instanceof Error ? err : new Error(String(err));
  if (e instanceof WorkError) return { errorClass: e.errorClass, retryable: e.retryable, message: e.message };
  if (e instanceof UnrecoverableError) return { errorClass: "validation", retryable: false, message: e.message };
  const known = CLASS_BY_NAME[e.name];
  if (known) {
    const retryable = (e as { retryable?: boolean }).retryable ?? known.retryable;
    return { ...known, retryable, message: e.message };
  }
  return { errorClass: "internal", retryable: true, message: e.message };
}
