// Delete by source: everything derived from one document, turn or direct write is
// retracted (nothing deleted) with an audit record, after checking the source is this
// context's.
import { notFound } from "@recall/contracts";
import { retractSource, type RetractionReport } from "@recall/memory";
import type { ServiceDeps } from "./service-deps";

export type RetractableSource = "document" | "turn" | "fact_write";

const NOUN: Record<RetractableSource, string> = { document: "document", turn: "turn", fact_write: "direct write" };

export class RetractionService {
  constructor(private readonly deps: Pick<ServiceDeps, "db">) {}

  /** Throws not_found when the source is not this context's. */
  async retract(contextId: string, sourceType: RetractableSource, sourceId: string, reason: string): Promise<RetractionReport> {
    if (!(await this.exists(contextId, sourceType, sourceId))) throw notFound(NOUN[sourceType]);
    return retractSource(this.deps.db, { contextId, sourceType, sourceId, reason });
  }

  private async exists(contextId: string, type: RetractableSource, id: string): Promise<boolean> {
    const where = { id, contextId };
    const { db } = this.deps;
    if (type === "document") return (await db.document.count({ where })) > 0;
    if (type === "turn") return (await db.turn.count({ where })) > 0;
    return (await db.factWrite.count({ where })) > 0;
  }
}
