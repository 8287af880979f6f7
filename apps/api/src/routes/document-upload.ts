// Reads POST …/documents in any of its forms into one DocumentInput: JSON `{ text }`,
// multipart/form-data (a `file` plus optional `metadata`, `source` and `scope` fields), or
// a raw body of a supported type (source and scope then come from the query string). The
// format is the declared type checked against the bytes; past the size limit it is 413,
// an unsupported type 415.
import busboy from "busboy";
import express, { type Request, type Response } from "express";
import { z } from "zod";
import { SUPPORTED_MEDIA_TYPES, detectFormat, mediaTypeOf, type DocumentFormat } from "@recall/extraction";
import type { DocumentInput } from "../services/document.service";
import { AppError, fromZod } from "../http/errors";
import { CreateDocumentBody, DocumentQuery, SourceField, UploadFields } from "./documents.schemas";

const MEDIA_TYPE_OF_FORMAT: Record<DocumentFormat, string> = {
  text: "text/plain",
  markdown: "text/markdown",
  html: "text/html",
  pdf: "application/pdf",
};

export const SUPPORTED_UPLOADS = ["application/json", "multipart/form-data", ...Object.keys(SUPPORTED_MEDIA_TYPES)];

export async function readDocumentInput(req: Request, res: Response, query: DocumentQuery, maxBytes: number): Promise<DocumentInput> {
  const mediaType = mediaTypeOf(req.headers["content-type"]);
  if (mediaType === "" || mediaType === "application/json") return fromJson(req.body, maxBytes);
  if (mediaType === "multipart/form-data") return fromMultipart(req, maxBytes);
  if (!(mediaType in SUPPORTED_MEDIA_TYPES)) throw unsupported(`unsupported media type "${mediaType}"`);
  const bytes = await rawBody(req, res, maxBytes);
  const source = query.source_id
    ? { type: query.source_type ?? "document", external_id: query.source_id, name: query.source_name }
    : undefined;
  return { ...checked(bytes, mediaType, query.file_name), metadata: {}, scope: query.scope, source };
}

function fromJson(raw: unknown, maxBytes: number): DocumentInput {
  const parsed = CreateDocumentBody.safeParse(raw ?? {});
  if (!parsed.success) throw fromZod(parsed.error, "body");
  const body = parsed.data;
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

async function rawBody(req: Request, res: Response, maxBytes: number): Promise<Buffer> {
  const parser = express.raw({ type: () => true, limit: maxBytes });
  await new Promise<void>((resolve, reject) =>
    parser(req, res, (err?: unknown) => {
      const e = err as { type?: string } | undefined;
      if (e?.type === "entity.too.large") reject(tooLarge(maxBytes, "body"));
      else if (err) reject(err);
      else resolve();
    }),
  );
  return Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
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
  const parsed = UploadFields.safeParse({ metadata: one("metadata"), source: one("source"), scope: form.fields.scope });
  if (!parsed.success) throw fromZod(parsed.error, "body");
  const { metadata, source, scope } = parsed.data;
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
    req.pipe(parser);
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
