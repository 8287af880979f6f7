// GET /openapi.json: the contract, generated from the same declarations that route requests.
import { z } from "zod";
import { buildOpenApiDocument } from "../http/openapi-document";
import { defineRoute, type RouteDefinition, type RouteGroup } from "../http/route-definition";

/** The contract's version; the generated client (packages/client) is built from the document carrying it. */
export const API_VERSION = "1.0.0";

/** `groups` is read on each request, so the document lists every route mounted after this one too. */
export function openApiRoutes(groups: () => RouteGroup[]): RouteDefinition[] {
  let document: Record<string, unknown> | undefined;
  return [
    defineRoute({
      method: "get",
      path: "/openapi.json",
      summary: "This API's OpenAPI 3.1 document",
      description:
        "Generated from the same route declarations that parse requests and check answers, so it cannot drift from the server. Rendered at /docs; the TypeScript client's types are generated from it.",
      tags: ["meta"],
      responses: {
        200: {
          description: "OpenAPI 3.1",
          schema: z.looseObject({ openapi: z.literal("3.1.0"), paths: z.record(z.string(), z.unknown()) }),
        },
      },
      handle: async () => {
        document ??= buildOpenApiDocument(groups(), API_VERSION);
        return { status: 200, body: document };
      },
    }),
  ];
}
