// Documents are processed after the 202; waiting for one means polling its status, with a
// growing interval, until it is committed, failed, or the caller's patience runs out.
import { RecallClientError, RecallTimeoutError } from "./errors.js";
import { sleep, type CallOptions } from "./transport.js";
import type { DocumentStatus } from "./types.js";

export interface WaitOptions {
  /** Give up after this long (default 120 s). */
  timeoutMs?: number;
  /** First pause between polls (default 200 ms); it grows by half each poll, up to 2 s. */
  intervalMs?: number;
  signal?: AbortSignal;
}

/** The document's pipeline ended `failed`; `document` is its status, naming the stage and error. */
export class RecallPipelineError extends RecallClientError {
  override name = "RecallPipelineError";
  constructor(readonly document: DocumentStatus) {
    const failed = document.stages.find((s) => s.error);
    super(
      `document ${document.document_id} failed${failed ? ` in ${failed.queue}: ${failed.error?.class} ${failed.error?.message ?? ""}` : ""}`.trim(),
    );
  }
}

export async function waitForDocument(
  status: (o: CallOptions) => Promise<DocumentStatus>,
  documentId: string,
  { timeoutMs = 120_000, intervalMs = 200, signal }: WaitOptions,
): Promise<DocumentStatus> {
  const deadline = Date.now() + timeoutMs;
  for (let pause = intervalMs; ; pause = Math.min(2_000, pause * 1.5)) {
    const current = await status({ signal });
    // awaiting_model: the rules' part is committed and the rest waits for a model (not a failure).
    if (current.state === "committed" || current.state === "awaiting_model") return current;
    if (current.state === "failed") throw new RecallPipelineError(current);
    const left = deadline - Date.now();
    if (left <= 0) throw new RecallTimeoutError(timeoutMs, `waiting for document ${documentId} (state ${current.state})`);
    await sleep(Math.min(pause, left), signal);
  }
}
