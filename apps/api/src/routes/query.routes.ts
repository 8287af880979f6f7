// POST /query: full-text search over memory and retained raw text, fused by reciprocal
// rank; vector similarity joins only when a VectorRetriever is configured, and the
// answer says which retrievers ran.
import { z } from "zod";
import { SEARCH_KINDS, searchMemory, vectorStatus, type RetrieverStatus } from "@recall/memory";
import type { ApiDeps } from "../deps";
import { defineRoute, type RouteDefinition } from "../route-definition";
import { ScopeBody } from "../scope-schema";
import { QueryResult } from "./memory.schemas";

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

const FULL_TEXT: RetrieverStatus = { name: "full_text", enabled: true };

export function queryRoutes(deps: ApiDeps): RouteDefinition[] {
  // Whether pgvector is installed does not change while the process runs.
  let vector: Promise<RetrieverStatus> | undefined;
  return [
    defineRoute({
      method: "post",
      path: "/query",
      summary: "Search memory and the raw text of turns and documents",
      tags: ["memory"],
      params: ContextParams,
      body: QueryBody,
      responses: { 200: { description: "Ranked results, best first", schema: QueryResult } },
      handle: async ({ params, body }) => {
        vector ??= vectorStatus(deps.db, deps.vector);
        const [results, vectorState] = await Promise.all([
          searchMemory(deps.db, { contextId: params.contextId, ...body }, deps.vector),
          vector,
        ]);
        return { status: 200, body: { query: body.query, results, retrievers: [FULL_TEXT, vectorState] } };
      },
    }),
  ];
}
