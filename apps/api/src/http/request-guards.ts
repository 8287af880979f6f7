// What a request body and query must be before any route sees them. Each check here stops a
// hostile or broken request that would otherwise hold the process or reach Postgres or a recursive
// serialiser and come back as a 500 (or minutes late):
// - a body over its route's cap: 413 when its Content-Length says so, before a byte of it is read and
//   before authentication; a body without a length (chunked) as soon as the cap is passed, never read on;
// - bytes that are not UTF-8 (silently turned into U+FFFD by a JSON parser);
// - nesting deep enough to overflow JSON.stringify, and arrays longer than any route takes (a million
//   `{}` in 3 MB would cost seconds of validation and gigabytes of issues), both found by one linear scan
//   of the raw bytes before JSON.parse builds anything;
// - NUL characters, which Postgres refuses in text and jsonb alike, and lone UTF-16 surrogates (`"\ud800"`
//   is valid JSON, but no UTF-8 text can hold it: Postgres refuses it in jsonb, and text columns would
//   store U+FFFD in its place).
import { isUtf8 } from "node:buffer";
import { Transform, type Readable } from "node:stream";
import type { Request, RequestHandler } from "express";
import { AppError } from "./errors";

/** Deeper than any memory write needs; shallow enough for every recursive walk downstream. */
export const MAX_JSON_DEPTH = 64;
/** The longest list any route takes: a POST /facts section at RECALL_FACT_WRITE_MAX_ITEMS' maximum. */
export const MAX_JSON_ARRAY_ITEMS = 10_000;
const JSON_TYPES = ["application/json", "application/*+json"];

/** How many bytes a request may carry, and the setting that says so; undefined for a route that bounds its own body. */
export type BodyCapOf = (req: Request) => { bytes: number; setting: string } | undefined;

export function bodyTooLarge(bytes: number, setting: string, field = "body"): AppError {
  const message = `is larger than the server's limit of ${bytes} bytes (${setting})`;
  return new AppError(413, "payload_too_large", `${field}: ${message}`, [{ field, message }]);
}

const invalidBody = (message: string, field = "body") => new AppError(400, "invalid_request", `${field}: ${message}`, [{ field, message }]);

/**
 * Every body is held to its route's cap before anything reads it; a JSON body is then read whole (at
 * most the cap), checked for UTF-8, depth and array lengths on its bytes, and parsed.
 */
export function boundedBody(capOf: BodyCapOf): RequestHandler {
  return async (req, _res, next) => {
    const cap = capOf(req);
    if (!cap) return next();
    if (Number(req.headers["content-length"] ?? 0) > cap.bytes) throw bodyTooLarge(cap.bytes, cap.setting);
    if (!req.is(JSON_TYPES)) return next();
    assertUtf8Identity(req);
    const bytes = await readBody(req, cap.bytes, () => bodyTooLarge(cap.bytes, cap.setting));
    if (bytes.length === 0) return next();
    if (!isUtf8(bytes)) throw invalidBody("is not valid UTF-8");
    const shape = jsonShapeProblem(bytes);
    if (shape) throw shape;
    req.body = parseJson(bytes);
    next();
  };
}

/** A charset other than UTF-8, or a compressed body (whose inflated size the cap would not see), is refused. */
function assertUtf8Identity(req: Request): void {
  const charset = /;\s*charset="?([^";\s]+)/i.exec(req.headers["content-type"] ?? "")?.[1]?.toLowerCase();
  const encoding = (req.headers["content-encoding"] ?? "identity").toLowerCase();
  if ((charset && charset !== "utf-8" && charset !== "utf8") || encoding !== "identity") {
    const message = "must be JSON in UTF-8, without a content encoding";
    throw new AppError(415, "unsupported_media_type", `body: ${message}`, [{ field: "body", message }]);
  }
}

function parseJson(bytes: Buffer): unknown {
  const text = bytes.toString("utf8");
  try {
    // A byte order mark is no part of the JSON text (RFC 8259 lets a parser ignore it).
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    throw new AppError(400, "invalid_json", "request body is not valid JSON", [{ field: "body", message: "not valid JSON" }]);
  }
}

/**
 * The request's bytes as they arrive, failing with `tooLarge()` as soon as more than `maxBytes` came:
 * the rest is never read (the error answer closes the connection, see errors.ts).
 */
export function cappedBody(req: Request, maxBytes: number, tooLarge: () => Error): Readable {
  let seen = 0;
  const capped = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      done(seen > maxBytes ? tooLarge() : null, chunk);
    },
  });
  // A client that goes away mid-body is the request's fault, not the server's (400, logged as such).
  const cutOff = () => {
    if (!req.complete) capped.destroy(invalidBody("ended before all of it arrived"));
  };
  req.once("error", cutOff);
  req.once("close", cutOff);
  return req.pipe(capped);
}

/** The whole body, at most `maxBytes` of it (see cappedBody). */
export async function readBody(req: Request, maxBytes: number, tooLarge: () => Error): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of cappedBody(req, maxBytes, tooLarge)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;

/** An open object or array: for an array the commas seen (its current index), for an object where its current key is. */
interface Frame {
  array: boolean;
  commas: number;
  expectKey: boolean;
  keyStart: number;
  keyEnd: number;
}

export interface JsonShapeCaps {
  depth: number;
  arrayItems: number;
}

/**
 * Depth and array lengths over their caps, found byte by byte outside strings: no parse, no
 * recursion, linear in the body. An array over the cap is named by its path (`body.attributes`).
 */
export function jsonShapeProblem(
  buf: Uint8Array,
  caps: JsonShapeCaps = { depth: MAX_JSON_DEPTH, arrayItems: MAX_JSON_ARRAY_ITEMS },
): AppError | undefined {
  const frames: Frame[] = [];
  let stringStart = -1;
  for (let i = 0; i < buf.length; i++) {
    const byte = buf[i];
    if (stringStart >= 0) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) {
        noteKey(frames.at(-1), stringStart, i + 1);
        stringStart = -1;
      }
    } else if (byte === QUOTE) stringStart = i;
    else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (frames.length >= caps.depth) return invalidBody(`nests objects or arrays deeper than ${caps.depth} levels`);
      frames.push({ array: byte === OPEN_BRACKET, commas: 0, expectKey: true, keyStart: -1, keyEnd: -1 });
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) frames.pop();
    else if (byte === COLON) {
      const top = frames.at(-1);
      if (top) top.expectKey = false;
    } else if (byte === COMMA) {
      const top = frames.at(-1);
      if (top && !top.array) top.expectKey = true;
      else if (top && ++top.commas >= caps.arrayItems)
        return invalidBody(`must hold at most ${caps.arrayItems} items`, pathOf(frames, buf));
    }
  }
  return undefined;
}

/** A string right after `{` or `,` in an object is its next key. */
function noteKey(frame: Frame | undefined, start: number, end: number): void {
  if (!frame || frame.array || !frame.expectKey) return;
  frame.keyStart = start;
  frame.keyEnd = end;
}

/** The path of the innermost open array, in the notation of validation errors (`body.turns.3.scope`). */
function pathOf(frames: Frame[], buf: Uint8Array): string {
  const segments = frames.slice(0, -1).map((frame) => (frame.array ? String(frame.commas) : keyText(buf, frame)));
  return ["body", ...segments].join(".");
}

function keyText(buf: Uint8Array, frame: Frame): string {
  const raw = Buffer.from(buf.subarray(frame.keyStart, Math.min(frame.keyEnd, frame.keyStart + 200))).toString("utf8");
  try {
    return String(JSON.parse(raw));
  } catch {
    return raw.replace(/^"/, "");
  }
}

/** A body that is not JSON is refused rather than read as an empty object (which could pass validation). */
export const requireJsonBody: RequestHandler = (req, _res, next) => {
  const hasBody = Number(req.headers["content-length"] ?? 0) > 0 || req.headers["transfer-encoding"] !== undefined;
  if (hasBody && !req.is(JSON_TYPES)) {
    const message = `must be application/json, not ${req.headers["content-type"] ?? "missing"}`;
    throw new AppError(415, "unsupported_media_type", `header.Content-Type: ${message}`, [{ field: "header.Content-Type", message }]);
  }
  next();
};

/** NUL or a lone surrogate anywhere in the path, query or body is a 400 naming where, never a database error. */
export const rejectUnstorableText: RequestHandler = (req, _res, next) => {
  if (/%00/.test(req.path) || unstorable(req.path)) throw unstorableIn("path", unstorable(req.path) ?? NUL);
  const found = unstorableField(req.query, "query") ?? unstorableField(req.body, "body");
  if (found) throw unstorableIn(found.field, found.problem);
  next();
};

const NUL = "must not contain NUL (\\u0000) characters";
const SURROGATE = "must not contain a lone UTF-16 surrogate (\\ud800-\\udfff without its pair): it is not text";
/** In `u` mode a surrogate pair is one code point, so this matches only the unpaired halves. */
const LONE_SURROGATE = /\p{Surrogate}/u;

function unstorable(text: string): string | undefined {
  if (text.includes("\0")) return NUL;
  return LONE_SURROGATE.test(text) ? SURROGATE : undefined;
}

function unstorableIn(field: string, message: string): AppError {
  return new AppError(400, "invalid_request", `${field}: ${message}`, [{ field, message }]);
}

/**
 * The path of the first string (or key) that cannot be stored; the depth check above bounds the recursion.
 * The path is built only for what is found: a body may hold millions of values.
 */
function unstorableField(value: unknown, path: string): { field: string; problem: string } | undefined {
  const found = findUnstorable(value);
  return found ? { field: [path, ...found.keys.reverse()].join("."), problem: found.problem } : undefined;
}

function findUnstorable(value: unknown): { keys: string[]; problem: string } | undefined {
  if (typeof value === "string") {
    const problem = unstorable(value);
    return problem ? { keys: [], problem } : undefined;
  }
  if (value === null || typeof value !== "object") return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorable(value[i]);
      if (found) return { keys: [...found.keys, String(i)], problem: found.problem };
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    const problem = unstorable(key);
    if (problem) return { keys: [key], problem };
    const found = findUnstorable((value as Record<string, unknown>)[key]);
    if (found) return { keys: [...found.keys, key], problem: found.problem };
  }
  return undefined;
}
