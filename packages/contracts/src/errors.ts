// The one error model of the service. Every error Recall names is a ServiceError, of one of three kinds:
// - DomainError: a request that cannot be done as asked. It carries a code, never an HTTP status; DOMAIN_ANSWERS
//   maps each code to its status once, so a package's refusal answers the API, MCP and CLI alike.
// - ClassifiedError: a pipeline failure, with the error class operators see on the work item and whether a retry
//   can help. The worker recognises it by this type, never by matching `err.name` strings.
// - SetupError: the process cannot start as configured (environment, migrations, queue prefix, skills).
// Anything else reaching a handler is a bug: logged, and answered as a plain 500.
import { z } from "zod";

export abstract class ServiceError extends Error {}

/** What the caller got wrong or what stands in the way; each code answers with one HTTP status. */
export const DOMAIN_ANSWERS = {
  /** Input a schema could not judge (a context's own rule, a cap); `fields` name it. */
  invalid: [400, "invalid_request"],
  unauthorized: [401, "unauthorized"],
  forbidden: [403, "forbidden"],
  /** The thing named does not exist in the caller's context. */
  not_found: [404, "not_found"],
  not_allowed: [405, "method_not_allowed"],
  /** It exists, but is not in a state that allows this (a revoked key rotated, a succeeded item retried). */
  conflict: [409, "conflict"],
  too_large: [413, "payload_too_large"],
  unsupported: [415, "unsupported_media_type"],
  /** Well-formed, but refused as a whole (an idempotency key reused for another request). */
  unprocessable: [422, "unprocessable"],
  /** Past a cap on work running at once (exports, imports); try again after `retryAfterSeconds`. */
  too_many: [429, "too_many_requests"],
  internal: [500, "internal"],
  /** Nothing is wrong with the request, but it cannot be served now; try again after `retryAfterSeconds`. */
  busy: [503, "busy"],
} as const satisfies Record<string, readonly [status: number, problem: string]>;
export type DomainErrorCode = keyof typeof DOMAIN_ANSWERS;

export interface DomainErrorField {
  /** Where the problem is: `body.content`, `query.limit`, `path.sessionId`, `header.Content-Type`. */
  field: string;
  message: string;
}

export interface DomainErrorDetails {
  fields?: DomainErrorField[];
  retryAfterSeconds?: number;
  /** A more precise problem type than the code's own (`session_busy`, `not_retryable`). */
  problem?: string;
}

export class DomainError extends ServiceError {
  override name = "DomainError";
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    readonly details: DomainErrorDetails = {},
  ) {
    super(message);
  }

  get status(): number {
    return DOMAIN_ANSWERS[this.code][0];
  }

  get problem(): string {
    return this.details.problem ?? DOMAIN_ANSWERS[this.code][1];
  }

  get fields(): DomainErrorField[] {
    return this.details.fields ?? [];
  }
}

/** The one way to say a named thing is not in the caller's context. */
export const notFound = (what: string) => new DomainError("not_found", `${what} not found`);

/** One field the caller got wrong: a 400 naming it. */
export function invalidField(field: string, message: string, problem?: string): DomainError {
  return new DomainError("invalid", `${field}: ${message}`, { fields: [{ field, message }], problem });
}

/** What operators see on a work item and its attempts. Mirrors the database enum. */
export const ErrorClassName = z.enum(["provider", "budget", "validation", "no_provider", "internal", "abandoned"]);
export type ErrorClassName = z.infer<typeof ErrorClassName>;

// A symbol from the global registry, so two copies of this module (tests, bundles) still agree.
const CLASSIFIED = Symbol.for("recall.classified-error");

export abstract class ClassifiedError extends ServiceError {
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

/** A named failure the pipeline cannot get past by retrying: bad input, not a passing fault. */
export class InputError extends ClassifiedError {
  override name = "InputError";
  readonly errorClass = "validation";
  readonly retryable = false;
}

/**
 * A stage's failure together with the model tokens its attempt had spent by then, so the
 * attempt record shows what a failed try still cost. Classified like its cause: pipeline's classifyError
 * reads the cause (failureCause), so this wrapper never stands for a failure of its own.
 */
export class StageFailure extends ServiceError {
  override name = "StageFailure";
  constructor(
    override readonly cause: unknown,
    readonly tokensUsed: number,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

/** The process cannot start as configured; the message says what to change. */
export class SetupError extends ServiceError {
  override name = "SetupError";
}
