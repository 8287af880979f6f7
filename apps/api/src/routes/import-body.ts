// Reads POST …/import's body as a stream of lines, never whole: the JSON body parser does not touch it (it is
// application/x-ndjson), each line is handed on as it arrives (the socket is read only as fast as the importer
// asks for lines, so it is paused while a batch is written), and past RECALL_IMPORT_MAX_BYTES the stream fails with 413.
import { Transform } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import type { Request } from "express";
import { mediaTypeOf } from "@recall/extraction";
import { AppError } from "../http/errors";

export const IMPORT_MEDIA_TYPES = ["application/x-ndjson", "application/jsonl", "application/json-seq"];

export function importLines(req: Request, maxBytes: number): AsyncIterable<string> {
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
  return linesOf(req.pipe(capped));
}

/** Lines as chunks arrive: memory holds one chunk and the line it ends in, whatever the body's size. */
async function* linesOf(chunks: AsyncIterable<Buffer>): AsyncGenerator<string> {
  const decoder = new StringDecoder("utf8");
  let rest = "";
  for await (const chunk of chunks) {
    const parts = (rest + decoder.write(chunk)).split("\n");
    rest = parts.pop() ?? "";
    for (const line of parts) yield line.endsWith("\r") ? line.slice(0, -1) : line;
  }
  rest += decoder.end();
  if (rest !== "") yield rest;
}

function tooLarge(maxBytes: number): AppError {
  const message = `must be at most ${maxBytes} bytes (RECALL_IMPORT_MAX_BYTES): split the export by time or scope`;
  return new AppError(413, "payload_too_large", `body: ${message}`, [{ field: "body", message }]);
}
