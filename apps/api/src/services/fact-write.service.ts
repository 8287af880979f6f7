// Direct writes (POST /facts): validated, committed and truth-maintained in the request
// by @recall/memory, like extracted facts; embedding them is left to a worker.
import { writeFacts } from "@recall/memory";
import { currentTraceId } from "@recall/telemetry";
import { newTraceId } from "../http/trace";
import { directStages, enqueueOrLeaveForSweeper, resetToQueued } from "@recall/queues";
import type { ServiceDeps } from "./service-deps";

export interface FactWriteServiceOptions {
  /** Whether an embedding model is configured, so committed facts get vectors. */
  embeddings: boolean;
}

export class FactWriteService {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly options: FactWriteServiceOptions,
  ) {}

  /** `diff` is the items as sent: the memory package applies a direct write's own defaults (high significance). */
  async write(contextId: string, scope: string[], diff: Record<string, unknown>) {
    const input = { contextId, scope, diff, traceId: currentTraceId() ?? newTraceId() };
    const result = await writeFacts(this.deps.db, directStages(this.deps.db), input);
    if (result.ok && this.options.embeddings) await this.embedInWorker(result.truthMaintenanceWorkItemId);
    return result;
  }

  /**
   * Truth maintenance ran in the request (checkpointed on its item, see @recall/queues markTruthMaintained);
   * embedding is the same item's next attempt, in a worker, so a write never waits on, or
   * fails with, the embedding provider, and the queue's retries cover that provider.
   */
  private async embedInWorker(truthMaintenanceItemId: string): Promise<void> {
    const item = await resetToQueued(this.deps.db, truthMaintenanceItemId, "succeeded");
    if (item) await enqueueOrLeaveForSweeper(this.deps, item);
  }
}
