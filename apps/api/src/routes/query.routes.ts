// POST /query: full-text search over memory and retained raw text, and vector similarity
// when an embedding model is configured, fused by reciprocal rank. The answer says which
// retrievers ran; a failing embedding provider leaves a full-text answer, not an error.
import { z } from "zod";
import { SEARCH_KINDS, searchMemory, type RetrieverStatus } from "@recall/memory";
import type { ApiDeps } from "../deps";
import { readWhereConsistent } from "../http/consistency";
import { defineRoute, type RouteDefinition } from "../http/route-definition";
import { ScopeBody } from "../http/scope-schema";
import { QueryResult } from "./memory.schemas";
import { EXAMPLES } from "./openapi-examples";

const ContextParams = z.object({ contextId: z.string() });

const QueryBody = z.object({
  query: z.string().trim().min(1, "must not be empty").max(2_000),
  scope: ScopeBody,
  limit: z.number().int().min(1).max(100).default(20),
  kinds: z
    .array(z.enum(SEARCH_KINDS))
    .min(1)
    .default([...SEARCH_KINDS])
    .describe("which kinds of text to search"),
  match: z.enum(["any", "all"]).default("any").describe("any: one of the words suffices; all: websearch syntax, every word"),
});

export function queryRoutes(deps: ApiDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: "post",
      path: "/query",
      summary: "Search memory and the raw text of turns and documents",
      description:
        "Full-text search always; vector similarity too when an embedding model is configured, fused by reciprocal rank. Only what is visible to the reader's scope is searched. `retrievers` says which retrievers ran: a failing embedding provider leaves a full-text answer, not an error.",
      tags: ["memory"],
      params: ContextParams,
      body: QueryBody,
      bodyExample: EXAMPLES.query.request,
      responses: { 200: { description: "Ranked results, best first", schema: QueryResult, example: EXAMPLES.query.response } },
      handle: async ({ params, body, req, res }) => {
        const { results, retrievers } = await readWhereConsistent(deps, req, res, (db) =>
          searchMemory(db, { contextId: params.contextId, ...body }, deps.vector),
        );
        for (const r of retrievers.filter(degraded))
          deps.logger.warn({ retriever: r.name, model: r.model, reason: r.reason }, "retriever skipped");
        return { status: 200, body: { query: body.query, results, retrievers } };
      },
    }),
  ];
}

/** Configured but left out of this answer: worth an operator's attention, unlike a retriever that is simply off. */
function degraded(r: RetrieverStatus): boolean {
  return r.enabled && !r.ran;
}
