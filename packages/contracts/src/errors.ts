// The one way a failure tells the queue what kind it is. Every package's named errors
// extend ClassifiedError (or are wrapped in StageFailure), and the worker recognises them
// by this type, never by matching `err.name` strings.
import { z } from "zod";

/** What operators see on a work item and its attempts. Mirrors the database enum. */
export const ErrorClassName = z.enum(["provider", "budget", "validation", "no_provider", "internal", "abandoned"]);
export type ErrorClassName = z.infer<typeof ErrorClassName>;

// A symbol from the global registry, so two copies of this module (tests, bundles) still agree.
const CLASSIFIED = Symbol.for("recall.classified-error");

export abstract class ClassifiedError extends Error {
  readonly [CLASSIFIED] = true;
  abstract readonly errorClass: ErrorClassName;
  /** Whether trying the same input again can succeed. */
  abstract readonly retryable: boolean;
  /** How long the provider asked us to wait before trying again. */
  readonly retryAfterMs?: number;
}

export function isClassifiedError(err: unknown): err is ClassifiedError {
  return typeof err === "object" && err !== null && (err as { [CLASSIFIED]?: boolean })[CLASSIFIED] === true;
}

/**
 * A stage's failure together with the model tokens its attempt had spent by then, so the
 * attempt record shows what a failed try still cost. Classified like its cause.
 */
export class StageFailure extends Error {
  override name = "StageFailure";
  constructor(
    override readonly cause: unknown,
    readonly tokensUsed: number,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}
