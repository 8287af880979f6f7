// Reads POST …/documents in any of its forms into one DocumentInput: JSON `{ text }`,
// multipart/form-data (a `file` plus optional `metadata`, `source` and `scope` fields), or
// a raw body of a supported type (source and scope then come from the query string). The
// format is the declared type checked against the bytes; past the size limit it is 413,
// an unsupported type 415.
import busboy from "busboy";
import type { Request } from "express";
import { z } from "zod";
import { SUPPORTED_MEDIA_TYPES, detectFormat, mediaTypeOf, type DocumentFormat } from "@recall/extraction";
import type { DocumentInput } from "../services/document.service";
import { AppError } from "../http/errors";
import { cappedBody, readBody } from "../http/request-guards";
import { parseInput } from "../http/route-definition";
import { CreateDocumentBody, DocumentQuery, SourceField, UploadFields } from "./documents.schemas";

const MEDIA_TYPE_OF_FORMAT: Record<DocumentFormat, string> = {
  text: "text/plain",
  markdown: "text/markdown",
  html: "text/html",
  pdf: "application/pdf",
};

export const SUPPORTED_UPLOADS = ["application/json", "multipart/form-data", ...Object.keys(SUPPORTED_MEDIA_TYPES)];

/**
 * The most bytes a request to POST …/documents may carry: the document, plus its JSON escaping or its
 * multipart framing and fields. A larger Content-Length is refused before the body is read (app.ts).
 */
export function documentBodyLimit(maxBytes: number, requestLimitBytes: number): number {
  return Math.max(requestLimitBytes, Math.ceil(maxBytes * 1.1) + 64 * 1024);
}

export async function readDocumentInput(req: Request, query: DocumentQuery, maxBytes: number): Promise<DocumentInput> {
  const mediaType = mediaTypeOf(req.headers["content-type"]);
  if (mediaType === "" || mediaType === "application/json") return documentFromJson(req.body, maxBytes);
  if (mediaType === "multipart/form-data") return fromMultipart(req, maxBytes);
  if (!(mediaType in SUPPORTED_MEDIA_TYPES)) throw unsupported(`unsupported media type "${mediaType}"`);
  const bytes = await readBody(req, maxBytes, () => tooLarge(maxBytes, "body"));
  const source = query.source_id
    ? { type: query.source_type ?? "document", external_id: query.source_id, name: query.source_name }
    : undefined;
  return { ...checked(bytes, mediaType, query.file_name), metadata: {}, scope: query.scope, source };
}

/** A JSON document body (POST /documents, MCP add_document) as the service's input; too large is a 413 naming body.text. */
export function documentFromJson(raw: unknown, maxBytes: number): DocumentInput {
  const body = parseInput(CreateDocumentBody, raw ?? {}, "body") as z.output<typeof CreateDocumentBody>;
  const bytes = Buffer.from(body.text, "utf8");
  if (bytes.length > maxBytes) throw tooLarge(maxBytes, "body.text");
  const format = body.format ?? "text";
  return { bytes, format, mediaType: MEDIA_TYPE_OF_FORMAT[format], metadata: body.metadata ?? {}, scope: body.scope, source: body.source };
}

function checked(
  bytes: Buffer,
  mediaType: string,
  fileName: string | undefined,
): Pick<DocumentInput, "bytes" | "format" | "mediaType" | "fileName"> {
  if (bytes.length === 0)
    throw new AppError(400, "invalid_request", "the document is empty", [{ field: "body", message: "must not be empty" }]);
  const verdict = detectFormat({ mediaType, fileName, bytes });
  if (!verdict.ok) throw unsupported(verdict.reason);
  return { bytes, format: verdict.format, mediaType: MEDIA_TYPE_OF_FORMAT[verdict.format], fileName };
}

interface Multipart {
  file?: { chunks: Buffer[]; mediaType: string; fileName?: string; truncated: boolean };
  fields: Record<string, string[]>;
}

async function fromMultipart(req: Request, maxBytes: number): Promise<DocumentInput> {
  const form = await readMultipart(req, maxBytes);
  if (!form.file)
    throw new AppError(400, "invalid_request", "body.file: required", [
      { field: "body.file", message: "a file part named `file` is required" },
    ]);
  if (form.file.truncated) throw tooLarge(maxBytes, "body.file");
  const one = (name: string) => form.fields[name]?.[0];
  const fields = { metadata: one("metadata"), source: one("source"), scope: form.fields.scope };
  const { metadata, source, scope } = parseInput(UploadFields, fields, "body") as z.output<typeof UploadFields>;
  const bytes = Buffer.concat(form.file.chunks);
  return { ...checked(bytes, form.file.mediaType, form.file.fileName), metadata: metadata ?? {}, scope, source: sourceOf(source) };
}

function sourceOf(source: z.infer<typeof SourceField> | undefined): DocumentInput["source"] {
  return typeof source === "string" ? { type: "document", external_id: source } : source;
}

function readMultipart(req: Request, maxBytes: number): Promise<Multipart> {
  return new Promise((resolve, reject) => {
    const form: Multipart = { fields: {} };
    const parser = busboy({ headers: req.headers, limits: { files: 1, fileSize: maxBytes, fields: 20, fieldSize: 1024 * 1024 } });
    parser.on("file", (name, stream, info) => {
      if (name !== "file" || form.file) return void stream.resume();
      const file = { chunks: [] as Buffer[], mediaType: mediaTypeOf(info.mimeType), fileName: info.filename, truncated: false };
      form.file = file;
      stream.on("data", (c: Buffer) => file.chunks.push(c));
      stream.on("limit", () => (file.truncated = true));
    });
    parser.on("field", (name, value) => (form.fields[name] ??= []).push(value));
    parser.on("close", () => resolve(form));
    parser.on("error", (err: Error) =>
      reject(
        new AppError(400, "invalid_request", `not a readable multipart body: ${err.message}`, [{ field: "body", message: err.message }]),
      ),
    );
    // Framing and fields past the document's own limit stop the upload at once (busboy alone would read on to the end).
    const wireLimit = documentBodyLimit(maxBytes, 0);
    const body = cappedBody(req, wireLimit, () => tooLarge(maxBytes, "body"));
    body.on("error", reject);
    body.pipe(parser);
  });
}

export function tooLarge(maxBytes: number, field: string): AppError {
  const message = `the document is larger than ${maxBytes} bytes, the limit set by RECALL_DOCUMENT_MAX_BYTES`;
  return new AppError(413, "payload_too_large", message, [{ field, message: `must be at most ${maxBytes} bytes` }]);
}

function unsupported(reason: string): AppError {
  const message = `${reason}; send ${SUPPORTED_UPLOADS.join(", ")}`;
  return new AppError(415, "unsupported_media_type", message, [{ field: "header.content-type", message: reason }]);
}
