// Errors as RFC 9457 problem details. Expected failures are values with a status;
// anything else is logged and answered as a plain 500 without internals.
import { trace } from "@opentelemetry/api";
import type { ErrorRequestHandler, Response } from "express";
import { ZodError, z } from "zod";
import { isDatabaseUnavailable } from "@recall/db";
import { isRedisUnavailable } from "@recall/queues";
import { recordError, type Logger } from "@recall/telemetry";
import { DomainError, type DomainErrorCode } from "../services/domain-error";

export interface FieldError {
  field: string;
  message: string;
}

/** The body of every error answer (RFC 9457 problem details), as published in the OpenAPI document. */
export const Problem = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
});

export class AppError extends Error {
  override name = "AppError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors: FieldError[] = [],
    /** Seconds a client should wait before trying again (the `Retry-After` header). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
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

/** The one place a service's reason becomes an HTTP status. */
const DOMAIN_ANSWER: Record<DomainErrorCode, [status: number, problem: string]> = {
  not_found: [404, "not_found"],
  conflict: [409, "conflict"],
  invalid: [400, "invalid_request"],
  busy: [503, "busy"],
};

export function fromDomain(err: DomainError): AppError {
  const { fields = [], retryAfterSeconds, problem } = err.details;
  const [status, code] = DOMAIN_ANSWER[err.code];
  return new AppError(status, problem ?? code, err.message, fields, retryAfterSeconds);
}

export const notFound = (what: string) => new AppError(404, "not_found", `${what} not found`);

export function fromZod(err: ZodError, where: "body" | "query" | "path"): AppError {
  const errors = err.issues.map((i) => ({ field: [where, ...i.path].join("."), message: i.message }));
  const summary = errors.map((e) => `${e.field}: ${e.message}`).join("; ");
  return new AppError(400, "invalid_request", summary, errors);
}

export function sendProblem(res: Response, err: AppError): void {
  if (err.retryAfterSeconds !== undefined) res.setHeader("Retry-After", String(err.retryAfterSeconds));
  res
    .status(err.status)
    .type("application/problem+json")
    .json({
      type: `https://recall.dev/problems/${err.code}`,
      title: err.code.replaceAll("_", " "),
      status: err.status,
      detail: err.message,
      ...(err.errors.length > 0 ? { errors: err.errors } : {}),
    });
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (err instanceof AppError) return sendProblem(res, err);
    if (err instanceof DomainError) return sendProblem(res, fromDomain(err));
    if (err instanceof ZodError) return sendProblem(res, fromZod(err, "body"));
    const status = (err as { status?: number; type?: string }).status;
    if ((err as { type?: string }).type === "entity.parse.failed") {
      return sendProblem(
        res,
        new AppError(400, "invalid_json", "request body is not valid JSON", [{ field: "body", message: "not valid JSON" }]),
      );
    }
    const outage = outageProblem(err);
    if (outage) {
      logger.warn({ err: (err as Error).message, path: req.path }, "dependency unavailable");
      return sendProblem(res, outage);
    }
    const parserProblem = bodyParserProblem(err as BodyParserError);
    if (parserProblem) return sendProblem(res, parserProblem);
    if ((err as { type?: string }).type === "entity.too.large") {
      const limit = (err as { limit?: number }).limit;
      return sendProblem(
        res,
        new AppError(413, "payload_too_large", `request body is larger than ${limit ?? "the limit of"} bytes`, [
          { field: "body", message: "too large" },
        ]),
      );
    }
    if (typeof status === "number" && status >= 400 && status < 500) {
      const message = (err as Error).message;
      // The router's own failure to decode a path parameter; anything else here comes from the body parser.
      const field = /decode param/i.test(message) ? "path" : "body";
      return sendProblem(res, new AppError(status, "bad_request", `${field}: ${message}`, [{ field, message }]));
    }
    logger.error({ err: (err as Error).message, stack: (err as Error).stack, path: req.path }, "unhandled error");
    const span = trace.getActiveSpan();
    if (span) recordError(span, err);
    sendProblem(res, new AppError(500, "internal", "internal error; see the server log"));
  };
}

interface BodyParserError {
  type?: string;
  limit?: number;
  charset?: string;
}

/** body-parser's own failures, named for the client (its messages are written for the server's log). */
function bodyParserProblem(err: BodyParserError): AppError | undefined {
  const body = (message: string) => [{ field: "body", message }];
  if (err.type === "entity.too.large") {
    const message = `is larger than the server's limit of ${err.limit} bytes (REQUEST_BODY_LIMIT_BYTES)`;
    return new AppError(413, "payload_too_large", `body: ${message}`, body(message));
  }
  if (err.type === "charset.unsupported" || err.type === "encoding.unsupported") {
    const message = "must be JSON in UTF-8, without a content encoding";
    return new AppError(415, "unsupported_media_type", `body: ${message}`, body(message));
  }
  return undefined;
}
