// Memory that is down costs a chain its memory, not its answer: each Recall request is bounded by a timeout (retries
// included), and a failure is a warning and an empty result. A caller who would rather fail throws from onWarning.
import type { CallOptions } from "@recall/client";

export interface Degrade {
  /** Each Recall request, retries included, gives up after this long (default 3,000 ms). */
  timeoutMs?: number;
  /** Where a failed Recall request is reported (default console.warn); throw from it to fail the chain instead. */
  onWarning?: (message: string, error: unknown) => void;
}

/** Runs `call` with a deadline; on failure reports it and answers `fallback`. */
export async function softly<T>(options: Degrade, failure: string, fallback: T, call: (o: CallOptions) => Promise<T>): Promise<T> {
  try {
    return await call({ signal: AbortSignal.timeout(options.timeoutMs ?? 3_000) });
  } catch (error) {
    const warn = options.onWarning ?? ((message: string, err: unknown) => console.warn(`[recall] ${message}: ${describe(err)}`));
    warn(failure, error);
    return fallback;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
