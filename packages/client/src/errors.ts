// What a failed call throws. The API answers every error as RFC 9457 problem details
// (application/problem+json); RecallError carries them typed, with the field errors a 400 names.

export interface FieldError {
  /** Where the problem is: `body.content`, `query.limit`, `path.sessionId`, … */
  field: string;
  message: string;
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: FieldError[];
}

/**
 * Every error the client throws: catch this one for "the call did not work", or a subclass for why
 * (RecallError, an answer; RecallTimeoutError; RecallConnectionError; RecallPipelineError).
 */
export abstract class RecallClientError extends Error {}

/** A non-success answer from the API, after any retries. */
export class RecallError extends RecallClientError {
  override name = "RecallError";
  readonly status: number;
  readonly type: string;
  readonly title: string;
  readonly detail: string;
  /** Per-field errors of a 400; empty otherwise. */
  readonly errors: FieldError[];
  readonly method: string;
  readonly url: string;
  /** The Retry-After of the last answer, when the server sent one (429, 503). */
  readonly retryAfter: string | null;

  constructor(response: Response, method: string, body: unknown) {
    const problem = asProblem(body);
    const status = response.status;
    const title = problem?.title ?? (response.statusText || `HTTP ${status}`);
    const detail = problem?.detail ?? (typeof body === "string" ? body.slice(0, 500) : "");
    super(`${method} ${response.url}: ${status} ${title}${detail ? `: ${detail}` : ""}`);
    this.status = status;
    this.type = problem?.type ?? "about:blank";
    this.title = title;
    this.detail = detail;
    this.errors = problem?.errors ?? [];
    this.method = method;
    this.url = response.url;
    this.retryAfter = response.headers.get("retry-after");
  }

  /** The message the server gave for one field, e.g. `err.fieldError("body.content")`. */
  fieldError(field: string): string | undefined {
    return this.errors.find((e) => e.field === field)?.message;
  }
}

/** One attempt (or a wait) took longer than the configured timeout; the call was abandoned. */
export class RecallTimeoutError extends RecallClientError {
  override name = "RecallTimeoutError";
  constructor(
    readonly timeoutMs: number,
    what: string,
  ) {
    super(`${what}: no answer within ${timeoutMs} ms`);
  }
}

/**
 * The call got no answer: the connection was refused or reset, or could not be made, after any retries (see
 * docs/clients.md). `code` is the system's (`ECONNREFUSED`, `ECONNRESET`, …) where there is one; `cause` keeps
 * the network error as fetch raised it.
 */
export class RecallConnectionError extends RecallClientError {
  override name = "RecallConnectionError";
  constructor(
    readonly method: string,
    readonly url: string,
    readonly code: string | undefined,
    readonly attempts: number,
    cause: unknown,
  ) {
    super(`${method} ${url}: no answer (${code ?? "network error"}) after ${attempts} attempt${attempts === 1 ? "" : "s"}`, { cause });
  }
}

function asProblem(body: unknown): Partial<Problem> | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const b = body as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === "string" ? v : undefined);
  const errors = Array.isArray(b.errors)
    ? b.errors.filter((e): e is FieldError => typeof e?.field === "string" && typeof e?.message === "string")
    : undefined;
  return { type: text(b.type), title: text(b.title), detail: text(b.detail), errors };
}
