// A provider's requests-per-minute limit is an account-wide limit: every worker process
// shares it. A gate, installed once per process (the worker's bootstrap sets a Redis-backed
// one when RECALL_MODEL_RPM is set), is passed by every chat completion before it is sent;
// clients are created in many places (per extractor, per window processor), hence one
// process-wide gate rather than a parameter threaded through each of them.
import type { Completion, CompletionRequest, ModelClient } from "./model-client";

export interface RequestGate {
  /** Resolves when one more request may be sent now; rejects if the signal aborts first. */
  acquire(signal?: AbortSignal): Promise<void>;
}

let installed: RequestGate | undefined;

export function installRequestGate(gate: RequestGate | undefined): void {
  installed = gate;
}

/** The client, passing the process's gate (if any) before each request. */
export function gatedClient(client: ModelClient): ModelClient {
  return {
    provider: client.provider,
    model: client.model,
    async complete<T>(request: CompletionRequest<T>): Promise<Completion<T>> {
      await installed?.acquire(request.signal);
      return client.complete(request);
    },
  };
}
