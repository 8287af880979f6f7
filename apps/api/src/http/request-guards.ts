// What a request body and query must be before any route sees them. Each check here stops a
// hostile or broken request that would otherwise reach Postgres or a recursive serialiser and
// come back as a 500: bytes that are not UTF-8 (silently turned into U+FFFD by the JSON parser),
// nesting deep enough to overflow JSON.stringify, NUL characters, which Postgres refuses in text
// and jsonb alike, and lone UTF-16 surrogates (`"\ud800"` is valid JSON, but no UTF-8 text can hold
// it: Postgres refuses it in jsonb, and text columns would store U+FFFD in its place).
import { isUtf8 } from "node:buffer";
import express, { type RequestHandler } from "express";
import { AppError } from "./errors";

/** Deeper than any memory write needs; shallow enough for every recursive walk downstream. */
export const MAX_JSON_DEPTH = 64;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

const invalidBody = (message: string) => new AppError(400, "invalid_request", `body: ${message}`, [{ field: "body", message }]);

/** express.json with the size limit, UTF-8 and depth checked on the raw bytes before parsing. */
export function jsonBody(limitBytes: number): RequestHandler {
  return express.json({
    limit: limitBytes,
    verify: (_req, _res, buf) => {
      if (!isUtf8(buf)) throw invalidBody("is not valid UTF-8");
      if (nestingExceeds(buf, MAX_JSON_DEPTH)) throw invalidBody(`nests objects or arrays deeper than ${MAX_JSON_DEPTH} levels`);
    },
  });
}

/** Counts brackets outside strings, byte by byte: no parse, no recursion. */
export function nestingExceeds(buf: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < buf.length; i++) {
    const byte = buf[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) depth--;
  }
  return false;
}

/** A body that is not JSON is refused rather than read as an empty object (which could pass validation). */
export const requireJsonBody: RequestHandler = (req, _res, next) => {
  const hasBody = Number(req.headers["content-length"] ?? 0) > 0 || req.headers["transfer-encoding"] !== undefined;
  if (hasBody && !req.is(["application/json", "application/*+json"])) {
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

/** The path of the first string (or key) that cannot be stored; the depth check above bounds the recursion. */
function unstorableField(value: unknown, path: string): { field: string; problem: string } | undefined {
  if (typeof value === "string") {
    const problem = unstorable(value);
    return problem ? { field: path, problem } : undefined;
  }
  if (value === null || typeof value !== "object") return undefined;
  for (const [key, item] of Object.entries(value)) {
    const at = `${path}.${key}`;
    const problem = unstorable(key);
    if (problem) return { field: at, problem };
    const found = unstorableField(item, at);
    if (found) return found;
  }
  return undefined;
}
