// Request and response shapes of the document routes.
import { z } from "zod";
import { Metadata as CappedMetadata, cappedText, withinMetadataCap } from "@recall/contracts";
import { ScopeInput, ScopeList } from "../http/scope-schema";
import { Timestamp } from "../views/work-item-view";

const Source = z.strictObject({
  type: cappedText("predicate").trim().min(1),
  name: cappedText("source").optional(),
  external_id: cappedText("source").optional().describe("the source's own id; a document posted under it again is its next version"),
  metadata: CappedMetadata.optional(),
});

const Metadata = withinMetadataCap(z.looseObject({ scope: ScopeList.optional() }));

export const CreateDocumentBody = z.object({
  text: z.string().min(1, "must not be empty").describe("at most RECALL_DOCUMENT_MAX_BYTES bytes (413 past it)"),
  format: z.enum(["text", "markdown", "html"]).optional().describe("how to split the text; default text"),
  scope: ScopeInput.optional().describe(
    'the document\'s scope, e.g. ["org=acme"] or {"org": "acme"}; what it teaches is visible to readers whose scope includes it',
  ),
  metadata: Metadata.optional(),
  source: Source.optional(),
});
export type CreateDocumentBody = z.infer<typeof CreateDocumentBody>;

/** A multipart field holding JSON. */
function jsonField<T extends z.ZodType>(schema: T) {
  return z
    .string()
    .transform((v, ctx) => {
      try {
        return JSON.parse(v) as unknown;
      } catch {
        ctx.addIssue({ code: "custom", message: "must be JSON" });
        return z.NEVER;
      }
    })
    .pipe(schema);
}

/** `source` as a JSON object like the JSON body's, or just the source's id. */
export const SourceField = z.union([Source, cappedText("source").trim().min(1)]);

export const UploadFields = z.object({
  metadata: jsonField(Metadata).optional(),
  source: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const value = v?.trim();
      if (value === undefined || !value.startsWith("{")) return value;
      try {
        return JSON.parse(value) as unknown;
      } catch {
        ctx.addIssue({ code: "custom", message: "must be a source id or a JSON object" });
        return z.NEVER;
      }
    })
    .pipe(SourceField.optional()),
  scope: ScopeList.optional(),
});

/** For a raw body (text/markdown, text/html, application/pdf, text/plain), what a form's fields would say. */
export const DocumentQuery = z.object({
  source_id: cappedText("source").trim().min(1).optional().describe("raw body: the source's id (re-ingest by source)"),
  source_type: cappedText("predicate").trim().min(1).optional().describe("raw body: the source's type (default document)"),
  source_name: cappedText("source").optional(),
  file_name: cappedText("source").optional().describe("raw body: the file's name, kept with the document"),
  scope: z
    .union([ScopeList, z.string()])
    .optional()
    .transform((v) => (typeof v === "string" ? [v] : v))
    .pipe(ScopeList.optional())
    .describe("raw body: scope entries, scope=org=acme&scope=user=alice"),
});
export type DocumentQuery = z.infer<typeof DocumentQuery>;

/** The request bodies the route accepts besides JSON, as the OpenAPI document shows them. */
export const UPLOAD_BODIES = {
  "multipart/form-data": {
    type: "object",
    required: ["file"],
    properties: {
      file: {
        type: "string",
        contentMediaType: "application/octet-stream",
        description: "the document: Markdown, HTML, PDF or plain text",
      },
      metadata: { type: "string", description: "JSON object: the document's metadata (scope, skill, domain, date, …)" },
      source: { type: "string", description: 'the source\'s id, or a JSON object {"type", "name", "external_id"}' },
      scope: { type: "array", items: { type: "string" }, description: "scope entries, key=value (repeat the field)" },
    },
  },
  "text/markdown": { type: "string", description: "split along its headings" },
  "text/html": { type: "string", description: "main content extracted, then split along its headings" },
  "text/plain": { type: "string" },
  "application/pdf": { type: "string", contentMediaType: "application/pdf", description: "split per page and paragraph" },
};

const Format = z.enum(["text", "markdown", "html", "pdf"]);

export const DocumentAccepted = z.object({
  document_id: z.uuid(),
  trace_id: z.string(),
  queued: z.boolean().describe("false when Redis did not answer (the sweeper queues it later), or for a duplicate"),
  duplicate: z.boolean().describe("true when these bytes were already stored in this format and scope: the answer names that document"),
  format: Format,
  previous_version_id: z.uuid().nullable().describe("the version of the same source this one replaces"),
});

export const DocumentVersions = z.object({
  document_id: z.uuid(),
  source: z.object({ id: z.uuid(), type: z.string(), name: z.string().nullable(), external_id: z.string().nullable() }).nullable(),
  versions: z.array(
    z.object({
      document_id: z.uuid(),
      version: z.number().int(),
      format: Format,
      file_name: z.string().nullable(),
      content_hash: z.string().describe("sha256 of the bytes received"),
      byte_size: z.number().int().nullable(),
      created_at: Timestamp,
      previous_version_id: z.uuid().nullable(),
      superseded_by: z.uuid().nullable(),
      retraction_id: z.uuid().nullable().describe("set once the facts only this version supported were retracted"),
      current: z.boolean(),
    }),
  ),
});

const StageView = z.object({
  queue: z.string(),
  status: z.string(),
  attempts: z.number().int(),
  started_at: Timestamp.nullable(),
  finished_at: Timestamp.nullable(),
  work_item_id: z.uuid().optional(),
  tokens_used: z.number().int().optional(),
  error: z.object({ class: z.string(), message: z.string().nullable() }).optional(),
});

export const DocumentStatus = z.object({
  document_id: z.uuid(),
  trace_id: z.string(),
  state: z
    .enum(["queued", "processing", "committed", "awaiting_model", "failed", "cancelled"])
    .describe(
      "committed once truth maintenance applied it, when document.committed fires (embedding is reported apart); " +
        "awaiting_model: the rules' sure part is committed; the rest needs a model none is configured for (not a failure)",
    ),
  embedding: z
    .enum(["pending", "done", "failed"])
    .describe(
      "the step after the commit (embedding it, when an embedding model is configured; the previous version retires before the document reads committed): " +
        "done once finished, failed when it has no retry left (the document stays committed; retry truth_maintenance's work item)",
    ),
  stages: z.array(StageView),
  extraction_plan: z
    .object({
      skill: z.string(),
      skill_source: z.string(),
      purpose: z.string().nullable(),
      purpose_source: z.string().nullable(),
      trace: z.unknown(),
    })
    .nullable(),
  candidates: z.object({
    total: z.number().int(),
    committed: z.number().int(),
    invalid: z.number().int(),
    pending_review: z.number().int().describe("held for review (GET …/reviews?document_id=…)"),
    invalid_details: z.array(z.object({ ordinal: z.number().int(), kind: z.string(), errors: z.unknown() })),
  }),
});

export const DocumentText = z.object({
  document_id: z.uuid(),
  start_byte: z.number().int().describe("the range answered, in UTF-8 bytes of the document's text"),
  end_byte: z.number().int(),
  text_bytes: z.number().int().describe("the whole text's length in UTF-8 bytes"),
  text: z.string(),
  next_start_byte: z.number().int().nullable().describe("pass as start_byte for the next range; null at the text's end"),
});
