import { notFound } from "@recall/contracts";
import { createHash } from "node:crypto";
import { z } from "zod";
import { READ_LIMITS, readDocumentText, readDocumentVersions } from "@recall/memory";
import { currentTraceId, newTraceId } from "@recall/telemetry";
import type { ApiDeps } from "../deps";
import { readWhereConsistent } from "../http/consistency";
import { Problem } from "../http/errors";
import { defineRoute, type RouteDefinition } from "../http/route-definition";
import { DocumentService, type DocumentInput, type IngestResult } from "../services/document.service";
import { documentStatus } from "../views/pipeline-status";
import { readDocumentInput } from "./document-upload";
import { ScopeQuery } from "../http/scope-schema";
import {
  CreateDocumentBody,
  DocumentAccepted,
  DocumentQuery,
  DocumentStatus,
  DocumentText,
  DocumentVersions,
  UPLOAD_BODIES,
} from "./documents.schemas";
import { EXAMPLES } from "./openapi-examples";

const DocumentParams = z.object({ contextId: z.string(), documentId: z.uuid("must be a document id") });

export function documentRoutes(deps: ApiDeps): RouteDefinition[] {
  return [postDocument(deps), documentStatusRoute(deps), documentVersionsRoute(deps), documentTextRoute(deps)];
}

/** Where the body read for the idempotency check is kept for the handler (a stream is read once). */
const READ_INPUT = "recall.documentInput";

function postDocument(deps: ApiDeps): RouteDefinition {
  const documents = new DocumentService(deps, { blobDir: deps.config.RECALL_BLOB_DIR });
  return defineRoute({
    method: "post",
    idempotent: true,
    path: "/documents",
    summary: "Ingest a document (JSON text, a file upload, or a raw Markdown, HTML, PDF or text body); processed asynchronously",
    description:
      "The format is the declared type checked against the bytes (a PDF is a PDF whatever it is called). " +
      "The same bytes in the same scope are stored once; a document posted under the source id of an earlier one is its next version.",
    tags: ["documents"],
    params: z.object({ contextId: z.string() }),
    query: DocumentQuery,
    requestBody: { "application/json": CreateDocumentBody, ...UPLOAD_BODIES },
    bodyExample: EXAMPLES.document.request,
    responses: {
      202: { description: "Stored and queued", schema: DocumentAccepted, example: EXAMPLES.document.response },
      200: { description: "These bytes were already stored in this scope: the existing document", schema: DocumentAccepted },
      413: { description: "Larger than RECALL_DOCUMENT_MAX_BYTES", schema: Problem, contentType: "application/problem+json" },
      415: {
        description: "Not a supported type, or bytes that are not what was declared",
        schema: Problem,
        contentType: "application/problem+json",
      },
    },
    // An upload is compared by what it carries: the same file and fields in another multipart framing is the same request.
    idempotencyMaterial: async (req, res) => {
      const query = DocumentQuery.safeParse(req.query);
      if (!query.success) return undefined; // the route answers 400 naming the parameter
      const input = await readDocumentInput(req, query.data, deps.config.RECALL_DOCUMENT_MAX_BYTES);
      res.locals[READ_INPUT] = input;
      const { bytes, ...described } = input;
      return { ...described, sha256: createHash("sha256").update(bytes).digest("hex") };
    },
    handle: async ({ params, query, req, res }) => {
      const input =
        (res.locals[READ_INPUT] as DocumentInput | undefined) ??
        (await readDocumentInput(req, query, deps.config.RECALL_DOCUMENT_MAX_BYTES));
      const body = documentAcceptedView(await documents.ingest(params.contextId, input, currentTraceId() ?? newTraceId()));
      return { status: body.duplicate ? 200 : 202, body };
    },
  });
}

function documentVersionsRoute(deps: ApiDeps): RouteDefinition {
  return defineRoute({
    method: "get",
    path: "/documents/:documentId/versions",
    summary: "Every version of the document's source, oldest first, with which one is current",
    description:
      "Documents posted with the same source id are versions of one source; the newest is current and the memory of earlier versions is superseded by it. 404 when the document is not in this context.",
    tags: ["documents"],
    params: DocumentParams,
    responses: { 200: { description: "The source's versions", schema: DocumentVersions } },
    handle: async ({ params, req, res }) => {
      const versions = await readWhereConsistent(deps, req, res, (db) => readDocumentVersions(db, params.contextId, params.documentId));
      if (!versions) throw notFound("document");
      return { status: 200, body: versions };
    },
  });
}

function documentStatusRoute(deps: ApiDeps): RouteDefinition {
  return defineRoute({
    method: "get",
    path: "/documents/:documentId/status",
    summary: "A document's pipeline progress, extraction plan and rejected candidates",
    description:
      "Poll it after POST /documents (202). `state` ends `committed`, `failed` or `cancelled`; each stage shows its work item, attempts and error class; `extraction_plan` says which skill and purpose were chosen and why; rejected candidates are listed with their validation errors.",
    tags: ["documents"],
    params: DocumentParams,
    responses: { 200: { description: "Progress by stage", schema: DocumentStatus } },
    handle: async ({ params }) => {
      const status = await documentStatus(deps.db, params.contextId, params.documentId);
      if (!status) throw notFound("document");
      return { status: 200, body: status };
    },
  });
}

// Below Postgres' int range with room for the range's length: the offsets are passed to substring().
const ByteOffset = z.coerce.number().int().min(0).max(2_000_000_000);
const DocumentTextQuery = z.object({
  scope: ScopeQuery,
  start_byte: ByteOffset.default(0).describe("UTF-8 byte offset in the document's text, as node and evidence spans are"),
  end_byte: ByteOffset.optional().describe(
    `where the range ends (at most ${READ_LIMITS.textRangeBytes.toLocaleString("en")} bytes after start_byte)`,
  ),
});

function documentTextRoute(deps: ApiDeps): RouteDefinition {
  return defineRoute({
    method: "get",
    path: "/documents/:documentId/text",
    summary: "A range of a document's text, by byte offsets",
    description: `Where a \`/query\` excerpt of a document node (\`truncated: true\`) or an evidence span is read in full: at most ${READ_LIMITS.textRangeBytes.toLocaleString("en")} bytes an answer, moved to whole characters; \`next_start_byte\` says where the next range starts. 404 when the document is not in this context or its scope is not the reader's.`,
    tags: ["documents"],
    params: DocumentParams,
    query: DocumentTextQuery,
    responses: { 200: { description: "The range of the text", schema: DocumentText } },
    handle: async ({ params, query, req, res }) => {
      const input = { ...params, scope: query.scope, startByte: query.start_byte, endByte: query.end_byte };
      const text = await readWhereConsistent(deps, req, res, (db) => readDocumentText(db, input));
      if (!text) throw notFound("document");
      return { status: 200, body: text };
    },
  });
}

/** What POST /documents (and MCP add_document) answers for a stored or already-stored document. */
export function documentAcceptedView({ document, queued, duplicate }: IngestResult) {
  return {
    document_id: document.id,
    trace_id: document.traceId,
    queued,
    duplicate,
    format: document.format,
    previous_version_id: document.previousVersionId,
  };
}
