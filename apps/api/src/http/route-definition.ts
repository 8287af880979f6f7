// Every HTTP route is declared once, with zod schemas for its path, query, body and
// responses. The same declaration registers the Express handler (which parses the
// request with those schemas) and generates the OpenAPI document, so the published
// contract cannot drift from what the server accepts and answers.
import type { Request, Response } from "express";
import { z } from "zod";
import { fromZod } from "./errors";
import type { Tag } from "./openapi-tags";

export type HttpMethod = "get" | "post" | "delete";

/** `api_key`: the API-KEY header of the context in the path; `admin`: Authorization: Bearer ADMIN_API_KEY. */
export type RouteAuth = "none" | "admin" | "api_key";

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  /** application/json unless given. */
  contentType?: string;
  /** A realistic answer, published in the OpenAPI document; openapi.test.ts checks it against `schema`. */
  example?: unknown;
}

export interface Reply {
  status: number;
  body?: unknown;
  contentType?: string;
  /** The handler wrote and ended the response itself (a stream): nothing is left to send. */
  streamed?: boolean;
}

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;
type Schema = z.ZodType | undefined;

export interface RouteInput<P extends Schema, Q extends Schema, B extends Schema> {
  params: Parsed<P>;
  query: Parsed<Q>;
  body: Parsed<B>;
  req: Request;
  res: Response;
}

interface RouteMeta {
  method: HttpMethod;
  /** Express syntax, relative to the group's prefix: `/sessions/:sessionId/turns`. */
  path: string;
  summary: string;
  /** What a caller needs beyond the summary: when to call it, what it guarantees, what it refuses. */
  description: string;
  tags: Tag[];
  responses: Record<number, ResponseSpec>;
  /** A write that honours the Idempotency-Key header (idempotency/idempotency-guard.ts). */
  idempotent?: boolean;
  /**
   * For an idempotent route that reads its own body (see requestBody): reads it before the key is
   * claimed and returns what identifies the request (a file's hash, its fields), so a retry is
   * compared by content rather than by bytes a client may frame differently (multipart boundaries).
   */
  idempotencyMaterial?(req: Request, res: Response): Promise<unknown>;
  /**
   * For a route that reads its body itself (uploads in several media types): what each media
   * type carries, for the OpenAPI document. A zod schema or a JSON Schema object.
   */
  requestBody?: Record<string, z.ZodType | Record<string, unknown>>;
  /** Served and parsed like any route, but left out of the OpenAPI document (the /docs page's static files). */
  unlisted?: boolean;
  /** A realistic JSON body, published in the OpenAPI document; openapi.test.ts checks it against `body`. */
  bodyExample?: unknown;
}

export interface RouteSpec<P extends Schema, Q extends Schema, B extends Schema> extends RouteMeta {
  params?: P;
  query?: Q;
  body?: B;
  handle(input: RouteInput<P, Q, B>): Promise<Reply>;
}

export interface RouteDefinition extends RouteMeta {
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /** Parses the request with the declared schemas (400 naming the field on failure), then handles it. */
  run(req: Request, res: Response): Promise<Reply>;
}

/** Routes sharing a prefix and an authentication rule, mounted together. */
export interface RouteGroup {
  prefix: string;
  auth: RouteAuth;
  routes: RouteDefinition[];
}

export function defineRoute<P extends Schema = undefined, Q extends Schema = undefined, B extends Schema = undefined>(
  spec: RouteSpec<P, Q, B>,
): RouteDefinition {
  const { handle, ...meta } = spec;
  // A field the API does not know is an error naming it (a typo such as `occured_at` is never silently dropped).
  const body: z.ZodType | undefined = spec.body instanceof z.ZodObject ? spec.body.strict() : spec.body;
  return {
    ...meta,
    body,
    run: (req, res) =>
      handle({
        params: parseInput(spec.params, req.params, "path") as Parsed<P>,
        query: parseInput(spec.query, req.query, "query") as Parsed<Q>,
        body: parseInput(body, req.body ?? {}, "body") as Parsed<B>,
        req,
        res,
      }),
  };
}

/** Parses one part of a request with its schema: 400 naming the fields (at most MAX_REPORTED_ISSUES of them). */
export function parseInput(schema: z.ZodType | undefined, value: unknown, where: "path" | "query" | "body"): unknown {
  if (!schema) return undefined;
  const parsed = schema.safeParse(value, valuesExceed(value, FULL_REPORT_MAX_VALUES) ? STOP_AT_FIRST_FAILURE : undefined);
  if (!parsed.success) throw fromZod(parsed.error, where);
  return parsed.data;
}

/** A body of up to this many values is validated whole, every problem found (and the first 20 named). */
const FULL_REPORT_MAX_VALUES = 2_000;
/**
 * Past it, each list and object stops at its first failing item: what zod's own `validate()` passes
 * (ParseContextInternal.abortEarly, read by zod 4.6's arrays, objects, records, maps and sets). Without
 * it 10,000 empty items of a 6 MiB body cost 40,000 issues; route-definition.test.ts holds zod to it.
 */
const STOP_AT_FIRST_FAILURE = { abortEarly: true } as z.core.ParseContext<z.core.$ZodIssue>;

/** Counts values (arrays, objects and what they hold) until past `max`: linear, and stops early. */
export function valuesExceed(value: unknown, max: number): boolean {
  const pending: unknown[] = [value];
  let seen = 0;
  while (pending.length > 0) {
    const next = pending.pop();
    if (++seen > max) return true;
    if (next !== null && typeof next === "object") for (const item of Object.values(next)) pending.push(item);
  }
  return false;
}

/** The path as OpenAPI writes it: `/sessions/{sessionId}/turns`. */
export function openApiPath(prefix: string, path: string): string {
  const full = `${prefix}${path}`.replace(/\/+$/, "") || "/";
  return full.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
}
