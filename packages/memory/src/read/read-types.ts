// Shapes the read models return. Wire names are snake_case, as in the public API,
// so the HTTP layer passes them through without a second mapping.
import type { Scope } from "../core/scope";

export interface ReaderScope {
  contextId: string;
  /** The reader's scope; only rows written in a subset of it are visible (see ../scope.ts). */
  scope: Scope;
}

/** A position in a list ordered by (k, id); lists return the position of their last row as the next cursor. */
export interface ListPosition {
  k: string | number;
  id: string;
}

export interface Page<T> {
  items: T[];
  next: ListPosition | null;
}

export interface EntitySummary {
  id: string;
  name: string;
  type: string;
}

/** What every fact view carries, attribute or relation. */
export interface FactCommon {
  id: string;
  memory_category: string;
  confidence: number;
  scope: string[];
  valid_from: Date;
  valid_to: Date | null;
  superseded_by: string | null;
  recorded_at: Date;
  retracted_at: Date | null;
  assertion_id: string;
}

export interface AttributeFact extends FactCommon {
  kind: "attribute";
  entity: EntitySummary;
  key: string;
  value: string;
}

export interface RelationFact extends FactCommon {
  kind: "relation";
  subject: EntitySummary;
  predicate: string;
  object: EntitySummary;
}

export type FactView = AttributeFact | RelationFact;

export interface InstructionView {
  id: string;
  label: string;
  description: string;
  scope: string[];
  created_at: Date;
}

export interface UnknownView {
  id: string;
  about: string;
  reason: string;
  resolved: boolean;
  resolved_at: Date | null;
  entity_id: string | null;
  key: string | null;
  turn_id: string | null;
  document_id: string | null;
  created_at: Date;
}
