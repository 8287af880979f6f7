// A fact's provenance as GET /facts/{id}/provenance and the MCP get_provenance tool answer it.
import type { Assertion, Db } from "@recall/db";
import { readProvenance } from "@recall/memory";
import { workOnSubject } from "@recall/pipeline";
import { workItemView } from "./work-item-view";

/** Undefined when the fact is not in this context or not visible to the reader's scope. */
export async function provenanceView(db: Db, reader: { contextId: string; scope: string[] }, factId: string) {
  const found = await readProvenance(db, reader, factId);
  if (!found) return undefined;
  const work = found.source ? await workOnSubject(db, reader.contextId, found.source) : [];
  return { ...found, assertion: found.assertion && assertionView(found.assertion), work_items: work.map(workItemView) };
}

function assertionView(a: Assertion) {
  return {
    id: a.id,
    subject_entity_id: a.subjectEntityId,
    predicate: a.predicate,
    object_entity_id: a.objectEntityId,
    object_literal: a.objectLiteral,
    confidence: a.confidence,
    significance: a.significance,
    memory_category: a.memoryCategory,
    event_time: a.eventTime,
    recorded_at: a.recordedAt,
    retracted_at: a.retractedAt,
  };
}
