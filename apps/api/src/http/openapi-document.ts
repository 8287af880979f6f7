// The OpenAPI 3.1 document, generated from the route declarations (route-definition.ts).
// OpenAPI 3.1 schemas are JSON Schema 2020-12, which is what z.toJSONSchema writes.
import { z } from "zod";
import { Problem } from "./errors";
import { IDEMPOTENCY_HEADER, REPLAYED_HEADER } from "../idempotency/idempotency-guard";
import { TAGS } from "./openapi-tags";
import { openApiPath, type RouteDefinition, type RouteGroup } from "./route-definition";

type JsonSchema = Record<string, unknown>;

const SECURITY: Record<RouteGroup["auth"], Record<string, string[]>[]> = {
  none: [],
  api_key: [{ ApiKey: [] }],
  admin: [{ AdminBearer: [] }],
};

const DESCRIPTION = [
  "Durable, traceable memory for agents: ingest conversation turns and documents, read what was learned.",
  "",
  "Every context-scoped path starts with `/api/v1/{contextId}` and takes that context's key in the `API-KEY` header.",
  "`/api/v1/contexts` and `/api/v1/admin` are fixed segments of the admin routes (`Authorization: Bearer ADMIN_API_KEY`);",
  "context ids are UUIDs, so they never collide with them. Errors are RFC 9457 problem details naming each bad field.",
  "This document is served at `/openapi.json` and rendered at `/docs`.",
].join("\n");

/** The `{contextId}` of every context-scoped path, constrained so it cannot be read as a fixed segment. */
const CONTEXT_ID_SCHEMA = {
  type: "string",
  format: "uuid",
  pattern: "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
  description: "The context (tenant) the API key belongs to. A UUID: never `contexts` or `admin`, the admin routes' fixed segments.",
};

export function buildOpenApiDocument(groups: RouteGroup[], version: string): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const group of groups) {
    for (const route of group.routes.filter((r) => !r.unlisted)) {
      const path = openApiPath(group.prefix, route.path);
      paths[path] = { ...paths[path], [route.method]: operation(group, route, path) };
    }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Recall API",
      version,
      description: DESCRIPTION,
      license: { name: "Apache 2.0", identifier: "Apache-2.0" },
    },
    // Relative: the server that serves this document (so /docs tries requests against itself).
    servers: [{ url: "/", description: "This server" }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      securitySchemes: {
        ApiKey: { type: "apiKey", in: "header", name: "API-KEY", description: "A key of the context named in the path." },
        AdminBearer: { type: "http", scheme: "bearer", description: "The server's ADMIN_API_KEY." },
      },
      schemas: { Problem: jsonSchema(Problem, "output") },
    },
  };
}

function operation(group: RouteGroup, route: RouteDefinition, path: string) {
  return {
    operationId: operationId(route.method, path),
    summary: route.summary,
    description: route.description,
    tags: route.tags,
    security: SECURITY[group.auth],
    parameters: [...pathParameters(route, path), ...queryParameters(route), ...idempotencyParameters(route)],
    ...requestBody(route),
    responses: { ...problemResponses(group, route, path), ...declaredResponses(route) },
  };
}

function requestBody(route: RouteDefinition) {
  const bodies: Record<string, z.ZodType | JsonSchema> = route.requestBody ?? (route.body ? { "application/json": route.body } : {});
  const content = Object.fromEntries(
    Object.entries(bodies).map(([type, schema]) => [
      type,
      {
        schema: schema instanceof z.ZodType ? jsonSchema(schema, "input") : schema,
        ...(type === "application/json" && route.bodyExample !== undefined ? { example: route.bodyExample } : {}),
      },
    ]),
  );
  return Object.keys(content).length > 0 ? { requestBody: { required: true, content } } : {};
}

/** get_work_items (a list) and get_work_items_by_id (one of it) differ by the trailing path parameter. */
function operationId(method: string, path: string): string {
  const segments = path.split("/").filter((p) => p && p !== "api" && p !== "v1");
  const words = segments.filter((p) => !p.startsWith("{"));
  const one = segments.at(-1)?.startsWith("{") && method === "get" ? ["by_id"] : [];
  return [method, ...words, ...one].join("_").replace(/[^A-Za-z0-9_]/g, "_");
}

function pathParameters(route: RouteDefinition, path: string) {
  const shape = objectShape(route.params);
  return [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({
    name,
    in: "path",
    required: true,
    schema:
      name === "contextId" ? CONTEXT_ID_SCHEMA : shape[name!] ? jsonSchema(shape[name!]!, "input") : { type: "string", format: "uuid" },
  }));
}

/** Object-valued query parameters (`scope[org]=acme`) are deepObject style, as qs parses them. */
function queryParameters(route: RouteDefinition) {
  return Object.entries(objectShape(route.query)).map(([name, schema]) => {
    const json = jsonSchema(schema, "input");
    const deep = JSON.stringify(json).includes('"type":"object"');
    return {
      name,
      in: "query",
      required: !schema.safeParse(undefined).success,
      schema: json,
      ...(deep ? { style: "deepObject", explode: true } : {}),
      ...(json.description ? { description: json.description } : {}),
    };
  });
}

function idempotencyParameters(route: RouteDefinition) {
  if (!route.idempotent) return [];
  return [
    {
      name: IDEMPOTENCY_HEADER,
      in: "header",
      required: false,
      description:
        "A key of your choosing (1–255 printable ASCII characters, e.g. a UUID), new for each write. A retry with the same key " +
        "and the same body, within IDEMPOTENCY_RETENTION_HOURS, answers the first answer again (status and body, with " +
        `\`${REPLAYED_HEADER}: true\`) and stores nothing; the same key with another body answers 422; while the first request ` +
        "is still running, a retry waits for its answer (409 with Retry-After if it takes too long). Errors are not kept.",
      schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x21-\\x7E]+$" },
    },
  ];
}

function declaredResponses(route: RouteDefinition) {
  return Object.fromEntries(
    Object.entries(route.responses).map(([status, spec]) => [
      status,
      {
        description: spec.description,
        ...(spec.schema ? { content: { [spec.contentType ?? "application/json"]: mediaType(spec.schema, spec.example) } } : {}),
      },
    ]),
  );
}

function mediaType(schema: z.ZodType, example: unknown) {
  return { schema: jsonSchema(schema, "output"), ...(example !== undefined ? { example } : {}) };
}

/** Errors every route of a kind can answer, as RFC 9457 problem details. */
function problemResponses(group: RouteGroup, route: RouteDefinition, path: string) {
  const problem = (description: string) => ({
    description,
    content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
  });
  return {
    // Any route: the path or query may hold text no server stores (NUL, a lone surrogate), a body may not be JSON.
    400: problem(
      route.params || route.query || route.body || route.requestBody
        ? "The request is invalid; `errors` names each field."
        : "The path, query or body holds what no request may (a NUL, a lone UTF-16 surrogate, malformed JSON); `errors` names where.",
    ),
    ...(group.auth !== "none" ? { 401: problem("Missing or invalid credentials.") } : {}),
    ...(path.includes("{") ? { 404: problem("Not found, or not in this context (ids never leak across contexts).") } : {}),
    ...(route.idempotent
      ? {
          409: problem(`A request with the same ${IDEMPOTENCY_HEADER} is still in progress; retry after Retry-After.`),
          422: problem(`The ${IDEMPOTENCY_HEADER} was already used for a different request.`),
        }
      : {}),
    ...(route.body ? { 413: problem("The body is larger than REQUEST_BODY_LIMIT_BYTES.") } : {}),
    500: problem("Internal error; details are in the server log under the trace id."),
    ...(group.auth !== "none"
      ? {
          503: problem(
            "Postgres (or, for queue operations, Redis) is not answering; nothing was half-done. Retry after Retry-After seconds.",
          ),
        }
      : {}),
  };
}

function objectShape(schema: z.ZodType | undefined): Record<string, z.ZodType> {
  return schema instanceof z.ZodObject ? (schema.shape as Record<string, z.ZodType>) : {};
}

function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _drop, ...json } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
  return json;
}
