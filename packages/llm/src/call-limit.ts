// How many model calls one lane of a worker process has in flight. Extraction runs more jobs than that (claims, the
// rules, and writing results need the CPU and Postgres, not the model), so while calls are out the next inputs get
// ready and the model is never left idle by a slot busy with the rest of a job. Calls past the limit wait in order of
// arrival; one whose signal aborts while waiting leaves the line.
import type { Completion, CompletionRequest, ModelClient } from "./model-client";

export class CallLimit {
  #running = 0;
  readonly #waiting: { start: () => void; signal?: AbortSignal; onAbort: () => void }[] = [];

  constructor(readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new Error(`a call limit must be a whole number of at least 1, not ${max}`);
  }

  /** Calls running now (tests, metrics). */
  get running(): number {
    return this.#running;
  }

  async run<T>(call: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.#acquire(signal);
    try {
      return await call();
    } finally {
      this.#release();
    }
  }

  #acquire(signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted();
    if (this.#running < this.max) {
      this.#running++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const entry = {
        signal,
        start: () => {
          signal?.removeEventListener("abort", entry.onAbort);
          resolve();
        },
        onAbort: () => {
          const at = this.#waiting.indexOf(entry);
          if (at >= 0) this.#waiting.splice(at, 1);
          reject(signal!.reason);
        },
      };
      signal?.addEventListener("abort", entry.onAbort, { once: true });
      this.#waiting.push(entry);
    });
  }

  #release(): void {
    const next = this.#waiting.shift();
    // The slot passes straight to the next call in line; with none waiting it is freed.
    if (next) next.start();
    else this.#running--;
  }
}

/** The client, each of its calls run within `limit`. */
export function limitedClient(client: ModelClient, limit: CallLimit): ModelClient {
  return {
    provider: client.provider,
    model: client.model,
    complete: <T>(request: CompletionRequest<T>): Promise<Completion<T>> => limit.run(() => client.complete(request), request.signal),
  };
}
