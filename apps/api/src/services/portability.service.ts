// Export and import of a context (docs/export-format.md). Memory does the reading and writing; this maps what it
// reports to domain errors: a refused line is a 400 naming its line and field, a context holding other memory a 409.
import { exportContext, importContext, ImportLineError, type ExportCounts, type ExportFilters, type ImportReport } from "@recall/memory";
import { pipelineRecords } from "@recall/pipeline";
import type { ReviewService } from "./review.service";
import type { ServiceDeps } from "./service-deps";

export class PortabilityService {
  constructor(
    private readonly deps: ServiceDeps & { reviews: ReviewService },
    /** RECALL_DOCUMENT_MAX_BYTES: an imported document is held to what POST …/documents takes. */
    private readonly options: { documentMaxBytes: number },
  ) {}

  /** Hands `write` the export page by page; `write` resolves when the reader has taken the page. */
  export(contextId: string, filters: ExportFilters, write: (chunk: string) => Promise<void>): Promise<ExportCounts> {
    return exportContext(this.deps.db, contextId, filters, write);
  }

  /** Approved reviews it brings are committed here, as they would have been where they came from. */
  async import(contextId: string, lines: AsyncIterable<string>): Promise<ImportReport> {
    try {
      const report = await importContext(this.deps.db, contextId, lines, pipelineRecords, this.options);
      await this.deps.reviews.commitApproved(contextId);
      return report;
    } catch (err) {
      // What was read before the refused line is imported: its approved reviews commit as well.
      if (err instanceof ImportLineError) await this.deps.reviews.commitApproved(contextId);
      throw err;
    }
  }
}
