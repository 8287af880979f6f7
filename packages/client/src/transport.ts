// The fetch every call goes through (openapi-fetch hands it the built Request): one
// Idempotency-Key per call, reused by each of its attempts, so a write the server already
// took is not stored twice; 429/503 retried per the policy; a refused or reset connection
// retried (any network error for a read); a timeout per attempt; the caller's AbortSignal
// honoured while waiting for an answer and between attempts.
import { RecallConnectionError, RecallTimeoutError } from "./errors.js";
import { RETRYABLE_STATUSES, RetryBudget, type RetryPolicy } from "./retry-policy.js";

export interface TransportSettings {
  fetch: typeof globalThis.fetch;
  /**
   * The newest consistency token this client was answered (a write's `Recall-Consistency`), sent with every later
   * call so a read after a write sees it even on a server's read replica; undefined: none seen, or tracking off.
   */
  consistency?: { token?: string };
  /** Per attempt: from sending the request to the last byte of the answer. */
  timeoutMs: number;
  retry: RetryPolicy;
}

/** Per-call options; every method of the client takes them last. */
export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Defaults to the request's own Idempotency-Key header, else a fresh UUID per call; pass your own to make a call you repeat yourself idempotent too. */
  idempotencyKey?: string;
  retry?: Partial<RetryPolicy>;
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

interface Attempt {
  url: string;
  method: string;
  headers: Headers;
  body: string | undefined;
}

export function callFetch(settings: TransportSettings, call: CallOptions = {}): (request: Request) => Promise<Response> {
  const policy = { ...settings.retry, ...call.retry };
  return async (request) => {
    const safe = SAFE_METHODS.has(request.method);
    const headers = new Headers(request.headers);
    const token = settings.consistency?.token;
    if (token && !headers.has(CONSISTENCY)) headers.set(CONSISTENCY, token);
    if (!safe) headers.set("Idempotency-Key", call.idempotencyKey ?? headers.get("Idempotency-Key") ?? crypto.randomUUID());
    const body = safe ? undefined : (await request.text()) || undefined;
    const attempt: Attempt = { url: request.url, method: request.method, headers, body };
    const budget = new RetryBudget(policy);
    for (let n = 1; ; n++) {
      const outcome = await sendOnce(settings, attempt, call);
      if (outcome instanceof Response) {
        const delay = RETRYABLE_STATUSES.has(outcome.status) ? budget.next(outcome.headers.get("retry-after"), n) : undefined;
        if (delay === undefined) return noteConsistency(settings, outcome);
        await sleep(delay, call.signal);
        continue;
      }
      // A write is sent again only where the server cannot have half-taken it without its Idempotency-Key
      // holding: the connection was refused, or reset before an answer (the key makes a second store a replay).
      const delay = safe || RESENDABLE.has(outcome.code ?? "") ? budget.next(null, n) : undefined;
      if (delay === undefined) throw new RecallConnectionError(request.method, request.url, outcome.code, n, outcome.error);
      await sleep(delay, call.signal);
    }
  };
}

const CONSISTENCY = "Recall-Consistency";

/** Keeps the newest token answered (answers to calls made at once may arrive in any order). */
function noteConsistency(settings: TransportSettings, response: Response): Response {
  const answered = response.headers.get(CONSISTENCY);
  const state = settings.consistency;
  if (state && answered && (state.token === undefined || walPosition(answered) > walPosition(state.token))) state.token = answered;
  return response;
}

/** A token as the server writes it (a Postgres WAL position, `16/B374D848`) as a number; -1 when it is not one. */
function walPosition(token: string): bigint {
  const m = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i.exec(token);
  return m ? (BigInt(`0x${m[1]}`) << 32n) + BigInt(`0x${m[2]}`) : -1n;
}

/** Refused, reset, or closed by the other side before an answer (undici's UND_ERR_SOCKET). */
const RESENDABLE = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "UND_ERR_SOCKET"]);

interface NetworkFailure {
  error: unknown;
  code: string | undefined;
}

/** fetch's TypeError carries the system's error as its cause (an AggregateError when several addresses were tried). */
function networkCode(err: unknown): string | undefined {
  const cause = (err as { cause?: { code?: unknown; errors?: { code?: unknown }[] } }).cause;
  const code = cause?.code ?? cause?.errors?.[0]?.code;
  return typeof code === "string" ? code : undefined;
}

/** One attempt, body read in full inside the timeout; a network error is returned, to be retried or thrown by the caller. */
async function sendOnce(settings: TransportSettings, a: Attempt, call: CallOptions): Promise<Response | NetworkFailure> {
  const timeoutMs = call.timeoutMs ?? settings.timeoutMs;
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  const signal = call.signal ? AbortSignal.any([call.signal, timeout.signal]) : timeout.signal;
  try {
    const response = await settings.fetch(a.url, { method: a.method, headers: a.headers, body: a.body, signal });
    const bytes = await response.arrayBuffer();
    const copy = new Response(NULL_BODY.has(response.status) ? null : bytes, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    // A constructed Response has no url; errors name the request's.
    Object.defineProperty(copy, "url", { value: response.url || a.url });
    return copy;
  } catch (err) {
    if (call.signal?.aborted) throw call.signal.reason;
    if (timeout.signal.aborted) throw new RecallTimeoutError(timeoutMs, `${a.method} ${a.url}`);
    // fetch's network failures are TypeErrors with a cause; one without (an invalid URL) is the caller's to see.
    // By name: undici's TypeError may come from another realm than this module's (a test runner's sandbox).
    const failed = err as { name?: unknown; cause?: unknown } | null;
    if (failed?.name === "TypeError" && failed.cause !== undefined) return { error: err, code: networkCode(err) };
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

const NULL_BODY = new Set([204, 205, 304]);

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
