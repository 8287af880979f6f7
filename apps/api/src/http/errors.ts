// Errors as RFC 9457 problem details. Expected failures are values with a status;
// anything else is logged and answered as a plain 500 without internals.
import { DOMAIN_ANSWERS, DomainError, type DomainErrorCode, type DomainErrorField } from "@recall/contracts";
import { trace } from "@opentelemetry/api";
import type { ErrorRequestHandler, Response } from "express";
import { ZodError, z } from "zod";
import { isDatabaseUnavailable } from "@recall/db";
import { isRedisUnavailable } from "@recall/pipeline";
import { recordError, type Logger } from "@recall/telemetry";
import { closeAfterAnswer } from "./connection-close";

/** One field a refusal names. */
export type FieldError = DomainErrorField;

/** The body of every error answer (RFC 9457 problem details), as published in the OpenAPI document. */
export const Problem = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
});

/**
 * A refusal only HTTP can make (a header, a body's size, a route that does not exist), named by its status. It is a
 * DomainError like any service's refusal, answered the same way; services throw DomainError and never name a status.
 */
export class AppError extends DomainError {
  override name = "AppError";
  constructor(
    private readonly httpStatus: number,
    problem: string,
    message: string,
    fields: FieldError[] = [],
    /** Seconds a client should wait before trying again (the `Retry-After` header). */
    retryAfterSeconds?: number,
  ) {
    super(codeOfStatus(httpStatus), message, { problem, fields, retryAfterSeconds });
  }

  override get status(): number {
    return this.httpStatus;
  }
}

/** The domain code whose status this is, so a log or an MCP tool reading `code` sees the same kind of refusal. */
function codeOfStatus(status: number): DomainErrorCode {
  const code = (Object.keys(DOMAIN_ANSWERS) as DomainErrorCode[]).find((c) => DOMAIN_ANSWERS[c][0] === status);
  return code ?? (status >= 500 ? "internal" : "invalid");
}

/** How long a client is asked to wait while Postgres or Redis is not answering. */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;

/**
 * Postgres or Redis not answering is the service's outage, not the request's fault: 503 with
 * Retry-After, whatever route it hit. Nothing half-done stays behind (ingest writes in one
 * transaction, and work Postgres stored while Redis was down is queued by the sweeper).
 */
export function outageProblem(err: unknown): AppError | undefined {
  if (isDatabaseUnavailable(err)) {
    return new AppError(
      503,
      "database_unavailable",
      "the database is not answering; retry after Retry-After seconds",
      [],
      OUTAGE_RETRY_AFTER_SECONDS,
    );
  }
  if (isRedisUnavailable(err)) {
    return new AppError(
      503,
      "queue_unavailable",
      "the queue (Redis) is not answering; retry after Retry-After seconds",
      [],
      OUTAGE_RETRY_AFTER_SECONDS,
    );
  }
  return undefined;
}

/** At most this many problems are named in one answer: enough to fix a request, few enough to build at once. */
export const MAX_REPORTED_ISSUES = 20;
/** A field name or message past this length is cut: a hostile key or an "unrecognized keys" list can be megabytes. */
const MAX_REPORTED_TEXT = 200;

export function fromZod(err: ZodError, where: "body" | "query" | "path"): AppError {
  // An unknown key is named as its own field (`body.occured_at`), not as the object that holds it.
  const issues = err.issues.flatMap((i) =>
    i.code === "unrecognized_keys" ? i.keys.map((key) => ({ path: [...i.path, key], message: "unknown field" })) : [i],
  );
  const errors = issues.slice(0, MAX_REPORTED_ISSUES).map((i) => ({ field: cut([where, ...i.path].join(".")), message: cut(i.message) }));
  const more = issues.length - errors.length;
  const summary = errors.map((e) => `${e.field}: ${e.message}`).join("; ") + (more > 0 ? `; and ${more} more` : "");
  return new AppError(400, "invalid_request", summary, errors);
}

const cut = (text: string) => (text.length > MAX_REPORTED_TEXT ? `${text.slice(0, MAX_REPORTED_TEXT)}…` : text);

/** The one place a refusal becomes an HTTP answer: its code's status (DOMAIN_ANSWERS) and its problem type. */
export function sendProblem(res: Response, err: DomainError): void {
  const { retryAfterSeconds } = err.details;
  if (retryAfterSeconds !== undefined) res.setHeader("Retry-After", String(retryAfterSeconds));
  res
    .status(err.status)
    .type("application/problem+json")
    .json({
      type: `https://recall.dev/problems/${err.problem}`,
      title: err.problem.replaceAll("_", " "),
      status: err.status,
      detail: err.message,
      ...(err.fields.length > 0 ? { errors: err.fields } : {}),
    });
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    closeAfterAnswer(req, res);
    if (err instanceof DomainError) return sendProblem(res, err);
    const status = (err as { status?: number }).status;
    const outage = outageProblem(err);
    if (outage) {
      logger.warn({ err: (err as Error).message, path: req.path }, "dependency unavailable");
      return sendProblem(res, outage);
    }
    if (typeof status === "number" && status >= 400 && status < 500) {
      const message = (err as Error).message;
      // The router's own failure to decode a path parameter; anything else here comes from reading the body.
      const field = /decode param/i.test(message) ? "path" : "body";
      return sendProblem(res, new AppError(status, "bad_request", `${field}: ${message}`, [{ field, message }]));
    }
    logger.error({ ...unexpected(err), path: req.path }, "unhandled error");
    const span = trace.getActiveSpan();
    if (span) recordError(span, err);
    sendProblem(res, new AppError(500, "internal", "internal error; see the server log"));
  };
}

/**
 * What the log keeps of an unexpected error. A ZodError is one: routes parse their requests and answer 400
 * (route-definition.ts), so a schema failing here failed on data the service read, a stored row, whose text its
 * message quotes; only the issues' codes and the stack's frames are kept.
 */
function unexpected(err: unknown): { err: string; issues?: string[]; stack?: string } {
  if (err instanceof ZodError) {
    const frames = err.stack?.split("\n").filter((line) => /^\s+at /.test(line));
    return { err: "ZodError", issues: err.issues.map((i) => i.code), stack: frames?.join("\n") };
  }
  return { err: (err as Error).message, stack: (err as Error).stack };
}
