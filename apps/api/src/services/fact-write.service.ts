// Direct writes (POST /facts): validated, committed and truth-maintained in the request
// by @recall/memory, like extracted facts; embedding them is left to a worker.
//
// A write is all-or-nothing and answered once it is stored: the commit is one transaction, and a
// stage that fails after the write was stored (the commit, or truth maintenance after it) is
// handed to a worker rather than answered as an error. An error answer would give the
// Idempotency-Key back, and the client's retry would write everything a second time.
import { DomainError, invalidField } from "@recall/contracts";
import { writeFacts, type WriteFactsResult } from "@recall/memory";
import { directStages, enqueueOrLeaveForSweeper, resetToQueued, type WorkItemService } from "@recall/pipeline";
import { currentTraceId, newTraceId } from "@recall/telemetry";
import type { ServiceDeps } from "./service-deps";
import { checkScope, storedConfigOf } from "./scope-rule";
import { WaitLine } from "./wait-line";

export interface FactWriteServiceOptions {
  /** Whether an embedding model is configured, so committed facts get vectors. */
  embeddings: boolean;
  /** RECALL_FACT_WRITE_MAX_ITEMS: items one write may carry. */
  maxItems: number;
  /** RECALL_FACT_WRITE_CONCURRENCY: writes this process runs at once. */
  concurrency: number;
}

/** How long a write waits for one of the process's write slots before it answers 503. */
const WRITE_WAIT_MS = 30_000;
const SECTIONS = ["entities", "attributes", "relations", "instructions", "uncertainties"] as const;

export type StoredFactWrite = Exclude<WriteFactsResult, { ok: false }>;

export class FactWriteService {
  private readonly line: WaitLine;

  constructor(
    private readonly deps: ServiceDeps & { workItems: WorkItemService },
    private readonly options: FactWriteServiceOptions,
  ) {
    const { concurrency } = options;
    this.line = new WaitLine({ slots: concurrency, maxWaitMs: WRITE_WAIT_MS, maxWaiting: concurrency * 50, what: "direct writes" });
  }

  /** `diff` is the items as sent: the memory package applies a direct write's own defaults (high significance). */
  async write(contextId: string, scope: string[], diff: Record<string, unknown>): Promise<StoredFactWrite> {
    this.checkCap(diff);
    checkScope(await storedConfigOf(this.deps.db, contextId), scope, "body.scope");
    return this.line.run(async () => {
      const input = { contextId, scope, diff, traceId: currentTraceId() ?? newTraceId() };
      const result = await writeFacts(this.deps.db, directStages(this.deps.db), input);
      if (!result.ok) throw invalidWrite(result.errors);
      if (result.outcome === "applied") {
        if (this.options.embeddings) await this.embedInWorker(result.truthMaintenanceWorkItemId);
      } else {
        this.deps.logger.warn(
          { factWriteId: result.factWriteId, outcome: result.outcome, err: result.failure },
          "direct write left to a worker",
        );
        if (result.pendingWorkItemId) await this.handOff(result.pendingWorkItemId);
      }
      return result;
    });
  }

  /** Items across every section, counted before anything is parsed further: a 400 naming the largest section. */
  private checkCap(diff: Record<string, unknown>): void {
    const counts = SECTIONS.map((section) => [section, Array.isArray(diff[section]) ? diff[section].length : 0] as const);
    const total = counts.reduce((sum, [, n]) => sum + n, 0);
    if (total <= this.options.maxItems) return;
    const [largest] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
    const message = `a direct write holds at most ${this.options.maxItems} items across ${SECTIONS.join(", ")} (RECALL_FACT_WRITE_MAX_ITEMS); this one has ${total}: split it`;
    throw invalidField(`body.${largest}`, message);
  }

  /** The stage the in-process attempt left dead, queued again for a worker; best effort, it stays visible to operators either way. */
  private async handOff(workItemId: string): Promise<void> {
    await this.deps.workItems.retry(workItemId).catch((err: Error) => {
      this.deps.logger.error({ workItemId, err: err.message }, "direct write's unfinished stage not handed to a worker; retry it by hand");
    });
  }

  /**
   * Truth maintenance ran in the request (checkpointed on its item, see @recall/pipeline markTruthMaintained);
   * embedding is the same item's next attempt, in a worker, so a write never waits on, or
   * fails with, the embedding provider, and the queue's retries cover that provider. The write
   * is committed by now, so a failure here is logged, not answered.
   */
  private async embedInWorker(truthMaintenanceItemId: string): Promise<void> {
    try {
      const item = await resetToQueued(this.deps.db, truthMaintenanceItemId, "succeeded");
      if (item) await enqueueOrLeaveForSweeper(this.deps, item);
    } catch (err) {
      this.deps.logger.error(
        { workItemId: truthMaintenanceItemId, err: (err as Error).message },
        "committed write not queued for embedding",
      );
    }
  }
}

function invalidWrite(errors: { field: string; message: string }[]): DomainError {
  const fields = errors.map((e) => ({ field: `body.${e.field}`, message: e.message }));
  return new DomainError("invalid", fields.map((e) => `${e.field}: ${e.message}`).join("; "), { fields });
}
