// Which format an upload is: the declared media type (or, for a generic one, the file
// name's extension), checked against the bytes. A PDF is a PDF whatever it was called,
// an HTML page sent as text/plain is read as HTML, and binary bytes are never read as text.
import { DocumentParseError, type DocumentFormat } from "./document-types";

/** Media types accepted, and the format each names. */
export const SUPPORTED_MEDIA_TYPES: Readonly<Record<string, DocumentFormat>> = {
  "text/plain": "text",
  "text/markdown": "markdown",
  "text/x-markdown": "markdown",
  "text/html": "html",
  "application/xhtml+xml": "html",
  "application/pdf": "pdf",
};

/** Media types that say nothing about the content; the file name's extension decides. */
const GENERIC = new Set(["application/octet-stream", "binary/octet-stream", ""]);

const EXTENSIONS: Readonly<Record<string, DocumentFormat>> = {
  txt: "text",
  text: "text",
  md: "markdown",
  markdown: "markdown",
  html: "html",
  htm: "html",
  xhtml: "html",
  pdf: "pdf",
};

export type FormatVerdict = { ok: true; format: DocumentFormat } | { ok: false; reason: string };

export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

export function detectFormat(input: { mediaType: string; fileName?: string; bytes: Buffer }): FormatVerdict {
  const declared = declaredFormat(input.mediaType, input.fileName);
  if (isPdf(input.bytes)) return { ok: true, format: "pdf" };
  if (declared === undefined) return { ok: false, reason: `unsupported media type "${input.mediaType || "none"}"` };
  if (declared === "pdf") return { ok: false, reason: "declared a PDF, but the bytes do not start with %PDF-" };
  if (!isText(input.bytes)) return { ok: false, reason: `declared ${input.mediaType || declared}, but the bytes are not UTF-8 text` };
  if (declared !== "html" && looksLikeHtml(input.bytes)) return { ok: true, format: "html" };
  return { ok: true, format: declared };
}

function declaredFormat(mediaType: string, fileName: string | undefined): DocumentFormat | undefined {
  if (!GENERIC.has(mediaType)) return SUPPORTED_MEDIA_TYPES[mediaType];
  const extension = fileName?.toLowerCase().match(/\.([a-z]+)$/)?.[1];
  return extension ? EXTENSIONS[extension] : undefined;
}

export function isPdf(bytes: Buffer): boolean {
  // The header may follow a little junk; readers accept it within the first 1 KiB.
  return bytes.subarray(0, 1_024).includes("%PDF-");
}

function isText(bytes: Buffer): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

function looksLikeHtml(bytes: Buffer): boolean {
  const head = bytes
    .subarray(0, 512)
    .toString("utf8")
    .replace(/^\uFEFF/, "")
    .trimStart()
    .toLowerCase();
  return head.startsWith("<!doctype html") || head.startsWith("<html") || /^<(head|body)[\s>]/.test(head);
}

/** The bytes as text; the BOM is dropped, anything that is not UTF-8 is refused. */
export function decodeText(bytes: Buffer): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new DocumentParseError("the bytes are not UTF-8 text");
  }
}
