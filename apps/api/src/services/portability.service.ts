// Export and import of a context (docs/export-format.md). Memory does the reading and writing; this maps what it
// reports to domain errors: a refused line is a 400 naming its line and field, a context holding other memory a 409.
// An export's snapshot is read on a pool of its own (`snapshots`, as many connections as exports may run): its client
// may stop reading for as long as the write timeout allows, and the pool every other request needs must not wait
// with it. Exports and imports past their caps are refused with 429 (concurrency-caps.ts).
import { exportContext, importContext, ImportLineError, type ExportCounts, type ExportFilters, type ImportReport } from "@recall/memory";
import type { Db } from "@recall/db";
import { pipelineRecords } from "@recall/pipeline";
import { ConcurrencyCap } from "./concurrency-caps";
import type { ReviewService } from "./review.service";
import type { ServiceDeps } from "./service-deps";

export interface PortabilityDeps extends ServiceDeps {
  reviews: ReviewService;
  /** The exports' own pool, RECALL_EXPORT_CONCURRENCY connections (bootstrap.ts). */
  snapshots: Db;
}

export interface PortabilityOptions {
  /** RECALL_DOCUMENT_MAX_BYTES: an imported document is held to what POST …/documents takes. */
  documentMaxBytes: number;
  /** REQUEST_BODY_LIMIT_BYTES: an imported direct write is held to what POST …/facts takes. */
  directWriteMaxBytes: number;
  /** RECALL_EXPORT_CONCURRENCY, RECALL_EXPORT_CONTEXT_CONCURRENCY */
  exports: { total: number; perContext: number };
  /** RECALL_IMPORT_CONCURRENCY, RECALL_IMPORT_CONTEXT_CONCURRENCY */
  imports: { total: number; perContext: number };
}

/** An export or import lasts seconds to minutes: a refused one is asked to come back after a few seconds, not at once. */
const RETRY_AFTER_SECONDS = 10;

export class PortabilityService {
  private readonly exports: ConcurrencyCap;
  private readonly imports: ConcurrencyCap;

  constructor(
    private readonly deps: PortabilityDeps,
    private readonly options: PortabilityOptions,
  ) {
    this.exports = new ConcurrencyCap({
      what: "exports",
      ...options.exports,
      settings: { total: "RECALL_EXPORT_CONCURRENCY", perContext: "RECALL_EXPORT_CONTEXT_CONCURRENCY" },
      retryAfterSeconds: RETRY_AFTER_SECONDS,
    });
    this.imports = new ConcurrencyCap({
      what: "imports",
      ...options.imports,
      settings: { total: "RECALL_IMPORT_CONCURRENCY", perContext: "RECALL_IMPORT_CONTEXT_CONCURRENCY" },
      retryAfterSeconds: RETRY_AFTER_SECONDS,
    });
  }

  /** Exports and imports running now in this process (what the caps count). */
  get running(): { exports: number; imports: number } {
    return { exports: this.exports.inUse, imports: this.imports.inUse };
  }

  /** Hands `write` the export page by page; `write` resolves when the reader has taken the page. */
  export(contextId: string, filters: ExportFilters, write: (chunk: string) => Promise<void>): Promise<ExportCounts> {
    return this.exports.run(contextId, () => exportContext(this.deps.snapshots, contextId, filters, write));
  }

  /** Approved reviews it brings are committed here, as they would have been where they came from. */
  import(contextId: string, lines: AsyncIterable<string>): Promise<ImportReport> {
    return this.imports.run(contextId, () => this.importLines(contextId, lines));
  }

  private async importLines(contextId: string, lines: AsyncIterable<string>): Promise<ImportReport> {
    try {
      const report = await importContext(this.deps.db, contextId, lines, pipelineRecords, {
        documentMaxBytes: this.options.documentMaxBytes,
        directWriteMaxBytes: this.options.directWriteMaxBytes,
      });
      await this.deps.reviews.commitApproved(contextId);
      return report;
    } catch (err) {
      // What was read before the refused line is imported: its approved reviews commit as well.
      if (err instanceof ImportLineError) await this.deps.reviews.commitApproved(contextId);
      throw err;
    }
  }
}
