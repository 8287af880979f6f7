// A job that meets a Postgres outage (down, restarting, out of connections) did nothing wrong:
// it is delayed and runs again once Postgres may be back, without spending one of its
// attempts, so an outage longer than the retry schedule never leaves work dead. The attempt it
// left open is closed by its next run (markRunning).
import { DelayedError, type Job } from "bullmq";
import { isDatabaseUnavailable } from "@recall/db";
import type { Logger } from "@recall/telemetry";

/** Delays after consecutive outages: 0.5 s doubling to 30 s, ±25% jitter; reset by a job that gets through. */
export class OutageBackoff {
  private consecutive = 0;

  next(): number {
    const base = Math.min(30_000, 500 * 2 ** this.consecutive++);
    return Math.round(base * (0.75 + Math.random() * 0.5));
  }

  reset(): void {
    this.consecutive = 0;
  }
}

export interface OutageContext {
  job: Job;
  /** The worker's lock on the job, which moving it to delayed needs. */
  token: string | undefined;
  outage: OutageBackoff;
  logger: Logger;
}

export async function runThroughOutages<T>({ job, token, outage, logger }: OutageContext, run: () => Promise<T>): Promise<T> {
  try {
    const result = await run();
    outage.reset();
    return result;
  } catch (err) {
    if (!token || !isDatabaseUnavailable(err)) throw err;
    const delayMs = outage.next();
    logger.warn({ queue: job.queueName, jobId: job.id, delayMs, err: (err as Error).message }, "database unavailable; job delayed");
    await job.moveToDelayed(Date.now() + delayMs, token);
    throw new DelayedError();
  }
}
