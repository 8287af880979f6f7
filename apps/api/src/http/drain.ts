// Graceful shutdown of the API (SIGTERM). Draining: /readyz answers 503 (check `accepting`), the listener
// closes so no new connection is taken, a request that still arrives on a kept-alive connection is refused
// with 503 and Retry-After (nothing of it was stored, so a retry elsewhere is safe), and every answer closes
// its connection. Requests in flight finish; at SHUTDOWN_TIMEOUT_MS, turns still waiting for their
// extraction answer what they have (202 pending with their status URL: the turn is stored and its work
// goes on in the workers), then the remaining connections are closed.
import type { Server } from "node:http";
import type { RequestHandler } from "express";
import { settlesWithin, type Logger } from "@recall/telemetry";
import { AppError, sendProblem } from "./errors";

/** Paths answered while draining: a load balancer reads readiness on them. */
const HEALTH_PATHS = new Set(["/healthz", "/readyz"]);
/** After waiting turns are released, how long their answers get to be written. */
const RELEASE_GRACE_MS = 2_000;

export class Drain {
  #draining = false;
  #inFlight = 0;
  #idle: (() => void)[] = [];

  get draining(): boolean {
    return this.#draining;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** First middleware: counts requests in flight; while draining, refuses new ones and closes connections after each answer. */
  readonly guard: RequestHandler = (req, res, next) => {
    if (this.#draining) {
      res.setHeader("Connection", "close");
      if (!HEALTH_PATHS.has(req.path)) {
        res.setHeader("Retry-After", "1");
        return sendProblem(res, new AppError(503, "shutting_down", "this server is shutting down and takes no new requests; retry"));
      }
    }
    this.#inFlight += 1;
    res.once("close", () => {
      this.#inFlight -= 1;
      if (this.#inFlight === 0) for (const resolve of this.#idle.splice(0)) resolve();
    });
    next();
  };

  start(): void {
    this.#draining = true;
  }

  whenIdle(): Promise<void> {
    return this.#inFlight === 0 ? Promise.resolve() : new Promise((resolve) => this.#idle.push(resolve));
  }
}

export interface DrainTargets {
  server: Server;
  drain: Drain;
  /** Makes requests waiting on a turn answer now with the turn's current state. */
  releaseWaiting(): void;
  logger: Logger;
}

/** Drains the server within `timeoutMs` (see the file comment); answers whether every request finished in time. */
export async function drainServer({ server, drain, releaseWaiting, logger }: DrainTargets, timeoutMs: number): Promise<boolean> {
  drain.start();
  logger.info({ inFlight: drain.inFlight, timeoutMs }, "shutting down: not accepting, draining requests in flight");
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const drained = await settlesWithin(drain.whenIdle(), timeoutMs);
  if (!drained) {
    logger.warn({ inFlight: drain.inFlight }, "requests still in flight at the shutdown bound; answering waiting turns now");
    releaseWaiting();
    await settlesWithin(drain.whenIdle(), RELEASE_GRACE_MS);
  }
  server.closeAllConnections();
  await closed;
  return drained;
}
