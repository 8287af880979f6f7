// The write caps (contracts' limits.ts) as an import applies them: per kind of line, the schema each capped column
// must pass. An import is a way in like POST …/turns or POST …/facts, so a line holds what the API would have let
// in and nothing longer: a hand-made export cannot store a million-character turn or a 200,000-character name.
import { z } from "zod";
import {
  AliasList,
  AttachmentList,
  CANDIDATE_SCHEMAS,
  CandidateKind,
  DECISION_TEXT_CHARS,
  Metadata,
  ScopeList,
  attachmentText,
  cappedText,
  withinMetadataCap,
} from "@recall/contracts";

/** The schemas of the columns whose values the caps bound; null is not checked (a column Postgres allows empty). */
type ColumnCaps = Readonly<Record<string, z.ZodType>>;

const scope = { scope: ScopeList };
const name = cappedText("name");
const predicate = cappedText("predicate");
const value = cappedText("value");
const quote = cappedText("quote");
/** A value a review's edit changed, or changed to: a candidate's field (null when removed or absent). */
const editValue = z.union([value, z.number(), z.boolean(), z.null()]).optional();
/** A reviewer's note, a retraction's reason: as the review and retraction routes take them. */
const decisionText = z.string().max(DECISION_TEXT_CHARS, `at most ${DECISION_TEXT_CHARS} characters`);

/** By line kind. A kind absent here carries no capped text of its own (ids, times, flags). */
export const LINE_CAPS: Readonly<Record<string, ColumnCaps>> = {
  session: { metadata: Metadata },
  turn: { content: cappedText("content"), speaker: cappedText("speaker"), attachments: AttachmentList, ...scope },
  fact_write: scope,
  source: { type: predicate, name: cappedText("source"), external_id: cappedText("source"), metadata: Metadata },
  document: { file_name: cappedText("source"), metadata: withinMetadataCap(z.looseObject({ scope: ScopeList.optional() })) },
  entity: { name, aliases: AliasList, type: predicate, ...scope },
  entity_mention: scope,
  assertion: { predicate, object_literal: value, quote, ...scope },
  attribute: { key: predicate, value, ...scope },
  relation: { predicate, ...scope },
  instruction: { label: value, description: value, quote, ...scope },
  uncertainty: { about: value, reason: value, key: predicate, ...scope },
  // A review's edit records each field a reviewer changed, from what to what (review-decisions.ts): the values are
  // held to the value cap as POST …/approve holds an edit (the old value was a candidate's, under the same cap).
  review: { note: decisionText, edit: z.record(z.string(), z.strictObject({ from: editValue, to: editValue })) },
  retraction: { reason: decisionText },
};

export interface CapIssue {
  column: string;
  /** Where inside the column (`3` of a scope, `name` of a payload), empty for the value itself. */
  within: string[];
  message: string;
}

/** The caps that are settings of the server rather than WRITE_CAPS: the import is told them by its caller. */
export interface LineCapSettings {
  /** RECALL_DOCUMENT_MAX_BYTES: a document line's text is held to what POST …/documents takes. */
  documentMaxBytes?: number;
  /**
   * REQUEST_BODY_LIMIT_BYTES: a direct write's submitted diff (and the statement text made from it) is held to what
   * POST …/facts takes in one body.
   */
  directWriteMaxBytes?: number;
}

/** The first capped column of a row (columns as the table names them) that breaks its cap, if any. */
export function lineCapIssue(kind: string, row: Readonly<Record<string, unknown>>, settings: LineCapSettings = {}): CapIssue | undefined {
  for (const [column, schema] of Object.entries(LINE_CAPS[kind] ?? {})) {
    const issue = firstIssue(schema, row[column]);
    if (issue) return { column, within: issue.path.map(String), message: issue.message };
  }
  if (kind === "document") return documentIssue(row, settings.documentMaxBytes);
  if (kind === "fact_write") return directWriteIssue(row, settings.directWriteMaxBytes);
  if (kind === "turn") return attachmentTextIssue(row);
  return kind === "candidate" ? candidateIssue(row) : undefined;
}

function documentIssue(row: Readonly<Record<string, unknown>>, maxBytes: number | undefined): CapIssue | undefined {
  if (maxBytes === undefined || typeof row.text !== "string" || Buffer.byteLength(row.text) <= maxBytes) return undefined;
  return { column: "text", within: [], message: `at most ${maxBytes} bytes (RECALL_DOCUMENT_MAX_BYTES)` };
}

function directWriteIssue(row: Readonly<Record<string, unknown>>, maxBytes: number | undefined): CapIssue | undefined {
  if (maxBytes === undefined) return undefined;
  for (const column of ["payload", "text"] as const) {
    const value = row[column];
    const bytes = typeof value === "string" ? Buffer.byteLength(value) : Buffer.byteLength(JSON.stringify(value ?? null));
    if (bytes > maxBytes)
      return { column, within: [], message: `at most ${maxBytes} bytes (REQUEST_BODY_LIMIT_BYTES, as POST …/facts takes)` };
  }
  return undefined;
}

/**
 * A turn's attachment text is its attachments' (`attachmentText`), as the API derives it: evidence spans point into
 * it, so a line may not carry other text there (or text where there are no attachments).
 */
function attachmentTextIssue(row: Readonly<Record<string, unknown>>): CapIssue | undefined {
  const text = row.attachment_text ?? "";
  const expected = attachmentText(AttachmentList.parse(row.attachments ?? []));
  return text === expected ? undefined : { column: "attachment_text", within: [], message: "must be the attachments' text, one line each" };
}

/** A candidate's payload passes the schema of its kind: the one validation checks an extracted candidate with. */
function candidateIssue(row: Readonly<Record<string, unknown>>): CapIssue | undefined {
  const kind = CandidateKind.safeParse(row.kind);
  if (!kind.success) return { column: "kind", within: [], message: `must be one of ${CandidateKind.options.join(", ")}` };
  const issue = firstIssue(CANDIDATE_SCHEMAS[kind.data], row.payload);
  return issue && { column: "payload", within: issue.path.map(String), message: issue.message };
}

function firstIssue(schema: z.ZodType, value: unknown): { path: PropertyKey[]; message: string } | undefined {
  if (value === undefined || value === null) return undefined;
  const parsed = schema.safeParse(value);
  return parsed.success ? undefined : parsed.error.issues[0];
}
