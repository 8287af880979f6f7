// Export and import of a context (docs/export-format.md). Memory does the reading and writing; this maps what it
// reports to domain errors: a refused line is a 400 naming its line and field, a context holding other memory a 409.
import {
  exportContext,
  importContext,
  ImportLineError,
  ImportTargetNotEmpty,
  type ExportCounts,
  type ExportFilters,
  type ImportReport,
} from "@recall/memory";
import { DomainError, invalidField } from "./domain-error";
import type { ServiceDeps } from "./service-deps";

export class PortabilityService {
  constructor(private readonly deps: Pick<ServiceDeps, "db">) {}

  /** Hands `write` the export page by page; `write` resolves when the reader has taken the page. */
  export(contextId: string, filters: ExportFilters, write: (chunk: string) => Promise<void>): Promise<ExportCounts> {
    return exportContext(this.deps.db, contextId, filters, write);
  }

  async import(contextId: string, lines: AsyncIterable<string>): Promise<ImportReport> {
    try {
      return await importContext(this.deps.db, contextId, lines);
    } catch (err) {
      if (err instanceof ImportLineError)
        throw invalidField(`line ${err.line}.${err.field}`, err.message.replace(/^line \d+: [^:]+: /, ""));
      if (err instanceof ImportTargetNotEmpty)
        throw new DomainError("conflict", err.message, { fields: [{ field: "path.contextId", message: err.message }] });
      throw err;
    }
  }
}
