// Reads POST …/import's body as a stream of lines, never whole: the JSON body parser does not touch it (it is
// application/x-ndjson), each line is handed on as it arrives (the socket is read only as fast as the importer
// asks for lines, so it is paused while a batch is written), and past RECALL_IMPORT_MAX_BYTES the stream fails with 413.
// Lines are split on the bytes (0x0A never occurs inside a UTF-8 sequence) and each is decoded whole and strictly:
// a line that is not UTF-8, or longer than the line cap, is refused (400 naming it) as soon as it is seen.
import { Transform } from "node:stream";
import type { Request } from "express";
import { mediaTypeOf } from "@recall/extraction";
import { ImportLineError } from "@recall/memory";
import { AppError } from "../http/errors";

export const IMPORT_MEDIA_TYPES = ["application/x-ndjson", "application/jsonl", "application/json-seq"];

/**
 * The longest line an import takes: a document line holds the document's text (at most RECALL_DOCUMENT_MAX_BYTES,
 * up to twice that once JSON-escaped) and a little more; never more than the body may be.
 */
export function importLineCap(maxBytes: number, documentMaxBytes: number): number {
  return Math.min(maxBytes, 2 * documentMaxBytes + 1024 * 1024);
}

export function importLines(req: Request, maxBytes: number, maxLineBytes: number): AsyncIterable<string> {
  const mediaType = mediaTypeOf(req.headers["content-type"]);
  if (!IMPORT_MEDIA_TYPES.includes(mediaType)) {
    const message = `must be application/x-ndjson, not ${req.headers["content-type"] ?? "missing"}`;
    throw new AppError(415, "unsupported_media_type", `header.Content-Type: ${message}`, [{ field: "header.Content-Type", message }]);
  }
  if (Number(req.headers["content-length"] ?? 0) > maxBytes) throw tooLarge(maxBytes);
  let seen = 0;
  const capped = new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      done(seen > maxBytes ? tooLarge(maxBytes) : null, chunk);
    },
  });
  req.on("error", (err) => capped.destroy(err));
  return linesOf(req.pipe(capped), maxLineBytes);
}

/**
 * Lines as chunks arrive, in time linear in the body: each byte is scanned once for 0x0A, and a line's pieces are
 * joined once when it ends. Memory holds one chunk and the line it ends in, and a line at most maxLineBytes long.
 */
export async function* linesOf(chunks: AsyncIterable<Buffer>, maxLineBytes: number): AsyncGenerator<string> {
  let pieces: Buffer[] = [];
  let pending = 0;
  let n = 0;
  for await (const chunk of chunks) {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      n++;
      if (pending + nl - start > maxLineBytes) throw lineTooLong(n, maxLineBytes);
      pieces.push(chunk.subarray(start, nl));
      yield decodeLine(pieces, n);
      pieces = [];
      pending = 0;
      start = nl + 1;
    }
    if (start === chunk.length) continue;
    pieces.push(chunk.subarray(start));
    pending += chunk.length - start;
    if (pending > maxLineBytes) throw lineTooLong(n + 1, maxLineBytes);
  }
  if (pending > 0) yield decodeLine(pieces, n + 1);
}

function decodeLine(pieces: Buffer[], n: number): string {
  const bytes = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
  const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
  try {
    // A decoder a line: fatal decoding keeps no state worth sharing, and a shared one would carry a bad line's bytes on.
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(0, end));
  } catch {
    throw new ImportLineError(n, "line", "is not valid UTF-8 (byte spans point into the text as sent, so it is not repaired)");
  }
}

function lineTooLong(n: number, maxLineBytes: number): ImportLineError {
  return new ImportLineError(n, "line", `is longer than ${maxLineBytes} bytes, the longest line an import takes`);
}

function tooLarge(maxBytes: number): AppError {
  const message = `must be at most ${maxBytes} bytes (RECALL_IMPORT_MAX_BYTES): split the export by time or scope`;
  return new AppError(413, "payload_too_large", `body: ${message}`, [{ field: "body", message }]);
}
