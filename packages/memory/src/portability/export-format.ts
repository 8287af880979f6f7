// The NDJSON export format (docs/export-format.md), declared once for the exporter and the importer: which
// kinds of line there are, in which order they come, which table each one is, its columns (the line's fields,
// snake_case as in Postgres), and which of them hold ids that an import rewrites.
import { REVIEW_STATUSES } from "../review/review-decisions";

export const EXPORT_FORMAT = "recall.context-export";
export const EXPORT_FORMAT_VERSION = 1;

/** Rows read per page (keyset on id) and written per import transaction. */
export const PORTABILITY_BATCH_ROWS = 500;

export interface KindSpec {
  kind: string;
  table: string;
  /** The line's fields besides `kind`, in order; `id` first. */
  columns: readonly string[];
  /** Columns holding one id of this export (remapped on import). */
  ids: readonly string[];
  /** Columns holding a list of ids (remapped on import). */
  idLists?: readonly string[];
  /** How the table reaches its context: its own context_id, or through its document. */
  owner: "context" | "document";
  /** A column whose line field has another name (a candidate's `kind` would clash with the line's). */
  renamed?: Readonly<Record<string, string>>;
  /** The column a time filter reads. */
  time: string;
  /** The column a scope filter reads: a text[] column, a document's metadata.scope, or a candidate's input's. */
  scope?: "scope" | "metadata" | "input";
  /** Exported in this column's order (an integer that keeps an order the ids do not): `id` when absent. */
  keyset?: "seq";
  /** Text columns that take only these values (checked on import: Postgres would take any). */
  values?: Readonly<Record<string, readonly string[]>>;
  /** Values of columns a line may leave out (fields added to the line after lines were written without them). */
  defaults?: Readonly<Record<string, unknown>>;
  /** Text columns holding an entity's name, which must have a letter or digit (checked on import: core/identity.ts). */
  names?: readonly string[];
}

const FACT_COLUMNS = [
  "memory_category",
  "confidence",
  "assertion_id",
  "scope",
  "valid_from",
  "valid_to",
  "superseded_by",
  "recorded_at",
  "retracted_at",
];

/** In the order they are exported and must be imported: every row after the rows it references (bar forward links within facts). */
export const KINDS: readonly KindSpec[] = [
  { kind: "session", table: "sessions", columns: ["id", "metadata", "created_at"], ids: ["id"], owner: "context", time: "created_at" },
  {
    kind: "turn",
    table: "turns",
    columns: [
      "id",
      "session_id",
      "seq",
      "role",
      "speaker",
      "content",
      "attachments",
      "attachment_text",
      "scope",
      "occurred_at",
      "trace_id",
      "created_at",
    ],
    ids: ["id", "session_id"],
    // A line written before turns had attachments has neither field.
    defaults: { attachments: [], attachment_text: "" },
    owner: "context",
    time: "created_at",
    scope: "scope",
  },
  {
    kind: "fact_write",
    table: "fact_writes",
    columns: ["id", "payload", "text", "scope", "trace_id", "created_at"],
    ids: ["id"],
    owner: "context",
    time: "created_at",
    scope: "scope",
  },
  {
    kind: "source",
    table: "sources",
    columns: ["id", "type", "name", "external_id", "metadata", "created_at"],
    ids: ["id"],
    owner: "context",
    time: "created_at",
  },
  {
    kind: "document",
    table: "documents",
    // The original bytes (documents.original, blob files) are left out: `text` is what every span points into.
    columns: [
      "id",
      "source_id",
      "text",
      "metadata",
      "content_hash",
      "trace_id",
      "created_at",
      "format",
      "media_type",
      "file_name",
      "byte_size",
      "previous_version_id",
      "parsed_at",
    ],
    ids: ["id", "source_id", "previous_version_id"],
    owner: "context",
    time: "created_at",
    scope: "metadata",
  },
  {
    kind: "document_node",
    table: "document_nodes",
    columns: ["id", "document_id", "ordinal", "start_byte", "end_byte", "text", "heading_path", "page"],
    ids: ["id", "document_id"],
    owner: "document",
    time: "created_at",
    scope: "metadata",
  },
  {
    // Committed candidates (provenance reads an instruction's stage and model from its candidate) and those with a
    // review (held, approved, rejected or withdrawn). The work item they name is not exported (an import replays no
    // pipeline); its id is remapped like any other.
    kind: "candidate",
    table: "knowledge_candidates",
    columns: [
      "id",
      "work_item_id",
      "subject_type",
      "subject_id",
      "document_node_id",
      "turn_id",
      "ordinal",
      "kind",
      "payload",
      "status",
      "validation_errors",
      "stage",
      "model",
      "created_at",
    ],
    ids: ["id", "work_item_id", "subject_id", "document_node_id", "turn_id"],
    renamed: { kind: "candidate_kind" },
    owner: "context",
    time: "created_at",
    scope: "input",
  },
  {
    // Every review, so decisions and edits travel with the memory they shaped, in holding order. Review commits are
    // not exported: an approved review whose commit had not run is committed by the import (docs/review.md).
    kind: "review",
    table: "reviews",
    columns: [
      "id",
      "candidate_id",
      "subject_type",
      "subject_id",
      "session_id",
      "kind",
      "memory_category",
      "status",
      "edit",
      "note",
      "created_at",
      "decided_at",
      "committed_at",
    ],
    ids: ["id", "candidate_id", "subject_id", "session_id"],
    renamed: { kind: "review_kind" },
    owner: "context",
    time: "created_at",
    scope: "input",
    keyset: "seq",
    values: { subject_type: ["turn", "document"], status: REVIEW_STATUSES },
  },
  {
    kind: "entity",
    table: "entities",
    columns: ["id", "name", "identity_key", "type", "memory_category", "aliases", "scope", "created_at", "retracted_at"],
    ids: ["id"],
    names: ["name"],
    owner: "context",
    time: "created_at",
    scope: "scope",
  },
  {
    kind: "entity_mention",
    table: "entity_mentions",
    columns: ["id", "entity_id", "candidate_id", "turn_id", "document_id", "fact_write_id", "scope", "created_at", "retracted_at"],
    ids: ["id", "entity_id", "candidate_id", "turn_id", "document_id", "fact_write_id"],
    owner: "context",
    time: "created_at",
    scope: "scope",
  },
  {
    kind: "assertion",
    table: "assertions",
    columns: [
      "id",
      "candidate_id",
      "subject_entity_id",
      "predicate",
      "object_entity_id",
      "object_literal",
      "turn_id",
      "document_id",
      "document_node_id",
      "fact_write_id",
      "start_byte",
      "end_byte",
      "quote",
      "confidence",
      "significance",
      "memory_category",
      "stage",
      "model",
      "event_time",
      "scope",
      "trace_id",
      "recorded_at",
      "retracted_at",
    ],
    ids: ["id", "candidate_id", "subject_entity_id", "object_entity_id", "turn_id", "document_id", "document_node_id", "fact_write_id"],
    owner: "context",
    time: "recorded_at",
    scope: "scope",
  },
  {
    kind: "attribute",
    table: "attributes",
    columns: ["id", "entity_id", "key", "value", ...FACT_COLUMNS],
    ids: ["id", "entity_id", "assertion_id", "superseded_by"],
    owner: "context",
    time: "recorded_at",
    scope: "scope",
  },
  {
    kind: "relation",
    table: "relations",
    columns: ["id", "subject_id", "predicate", "object_id", ...FACT_COLUMNS],
    ids: ["id", "subject_id", "object_id", "assertion_id", "superseded_by"],
    owner: "context",
    time: "recorded_at",
    scope: "scope",
  },
  {
    kind: "supersession",
    table: "supersessions",
    columns: ["id", "fact_kind", "older_id", "newer_id", "valid_to", "previous_valid_to", "created_at", "undone_at"],
    ids: ["id", "older_id", "newer_id"],
    owner: "context",
    time: "created_at",
  },
  {
    kind: "instruction",
    table: "instructions",
    columns: [
      "id",
      "candidate_id",
      "label",
      "description",
      "scope",
      "active",
      "turn_id",
      "document_id",
      "fact_write_id",
      "quote",
      "start_byte",
      "end_byte",
      "created_at",
      "revoked_at",
      "revoked_by",
      "retracted_at",
    ],
    ids: ["id", "candidate_id", "turn_id", "document_id", "fact_write_id", "revoked_by"],
    owner: "context",
    time: "created_at",
    scope: "scope",
  },
  {
    kind: "uncertainty",
    table: "uncertainties",
    columns: [
      "id",
      "candidate_id",
      "about",
      "reason",
      "entity_id",
      "key",
      "scope",
      "turn_id",
      "document_id",
      "fact_write_id",
      "fact_ids",
      "resolved",
      "resolved_at",
      "resolved_by",
      "created_at",
      "retracted_at",
    ],
    ids: ["id", "candidate_id", "entity_id", "turn_id", "document_id", "fact_write_id", "resolved_by"],
    idLists: ["fact_ids"],
    owner: "context",
    time: "created_at",
    scope: "scope",
  },
  {
    kind: "retraction",
    table: "retractions",
    columns: ["id", "source_type", "source_id", "reason", "summary", "pending", "applied_at", "created_at"],
    ids: ["id", "source_id"],
    owner: "context",
    time: "created_at",
  },
];

/** The line field that holds a column. */
export const fieldOf = (spec: KindSpec, column: string): string => spec.renamed?.[column] ?? column;

export const KIND_BY_NAME: ReadonlyMap<string, KindSpec> = new Map(KINDS.map((k) => [k.kind, k]));

export interface ExportFilters {
  /** key=value pairs: only rows a reader in this scope sees (written scope ⊆ this one). */
  scope?: string[];
  since?: Date;
  until?: Date;
}
