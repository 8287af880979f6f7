// Erasure (docs/erasure.md): the text of some inputs, or of a whole context, deleted for good with a receipt.
// The service checks the request against the context and maps what memory reports to domain errors.
import { notFound, type ErasedWorkItem } from "@recall/contracts";
import { eraseContext, eraseInputs, readErasure, type EraseRequest, type ErasureReceipt } from "@recall/memory";
import { pipelineRecords as records, removeWorkItemJobs } from "@recall/pipeline";
import type { ServiceDeps } from "./service-deps";

export class ErasureService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "db" | "queues" | "logger">,
    private readonly options: { blobDir?: string },
  ) {}

  /** Throws not_found naming every asked-for id that is not this context's (nothing is erased then). */
  async erase(request: EraseRequest): Promise<ErasureReceipt> {
    const removeJobs = (items: readonly ErasedWorkItem[]) => this.removeJobs(items);
    return eraseInputs(this.deps.db, request, { records, blobDir: this.options.blobDir, removeJobs });
  }

  /**
   * The deleted items' jobs leave Redis too (their data is ids only, docs/erasure.md). The receipt stands when Redis
   * does not answer: finished jobs age out there (an hour, failed ones a week) and a queued one ends at its tombstone.
   */
  private async removeJobs(items: readonly ErasedWorkItem[]): Promise<void> {
    try {
      await removeWorkItemJobs(this.deps.queues, items);
    } catch (err) {
      this.deps.logger.warn({ err: (err as Error).message, jobs: items.length }, "erased items' jobs not removed from the queue");
    }
  }

  async get(contextId: string, erasureId: string): Promise<ErasureReceipt> {
    const receipt = await readErasure(this.deps.db, contextId, erasureId);
    if (!receipt) throw notFound("erasure");
    return receipt;
  }

  async eraseContext(contextId: string): Promise<ErasureReceipt> {
    const receipt = await eraseContext(this.deps.db, contextId, { records, blobDir: this.options.blobDir });
    if (!receipt) throw notFound("context");
    return receipt;
  }
}
