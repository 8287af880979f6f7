// What the API and the workers share when they stop on SIGTERM: a bounded wait, and a last-resort exit.
import type { Logger } from "./logger";

/** Whether `promise` settles within `ms` (it keeps running either way). */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Extra time past SHUTDOWN_TIMEOUT_MS for handing work back and closing connections. */
export const SHUTDOWN_GRACE_MS = 5_000;

/** Exits with status 1 after `ms` unless the process has exited by then: a stuck close must not keep it alive. */
export function exitAfter(ms: number, logger: Logger): void {
  setTimeout(() => {
    logger.error({ ms }, "shutdown did not finish in time; exiting");
    process.exit(1);
  }, ms).unref();
}
