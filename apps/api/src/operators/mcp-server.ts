// Recall over MCP (Streamable HTTP, stateless) at /api/v1/{context_id}/mcp. An agent
// runtime, not the API contract, so it is mounted as an extra and is not in the OpenAPI
// document. The tools call the same functions as the HTTP routes, under the same
// API-KEY rule: a missing or wrong key answers 401, a key of another context 404.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { Router, type Request, type Response } from "express";
import { z } from "zod";
import { SEARCH_KINDS, normaliseScope, readProfile, searchMemory } from "@recall/memory";
import { requireContextKey } from "../http/auth";
import type { ApiDeps } from "../deps";
import { json, registerAgentTools, toolError } from "./mcp-agent-tools";
import { registerOperatorTools } from "./mcp-operator-tools";
import { documentStatus } from "../views/pipeline-status";
import { ScopeList } from "../http/scope-schema";
import { contextIdOf } from "../http/validate";

export const MCP_PATH = "/api/v1/:contextId/mcp";

const PROFILE_LIMIT = 50;

/** One server per request: stateless mode keeps nothing between calls, so any API process can answer any call. */
export function recallMcpServer(deps: ApiDeps, contextId: string): McpServer {
  const server = new McpServer({ name: "recall", version: "0.1.0" });
  server.registerTool(
    "get_doc_pipeline_status",
    {
      description:
        "A document's pipeline progress: state (queued, processing, committed, failed), stages, extraction plan, rejected candidates",
      inputSchema: { document_id: z.uuid("must be a document id") },
    },
    async ({ document_id }) => {
      const status = await documentStatus(deps.db, contextId, document_id);
      return status ? json(status) : toolError(`document ${document_id} not found in this context`);
    },
  );
  server.registerTool(
    "get_profile",
    {
      description: "Entities in scope with their current attributes and relations, and the active instructions",
      inputSchema: { scope: ScopeList.describe('the reader\'s scope, e.g. ["org=acme", "user=alice"]') },
    },
    async ({ scope }) => {
      const profile = await readProfile(deps.db, { contextId, scope: normaliseScope(scope), limit: PROFILE_LIMIT });
      return json({ entities: profile.entities, instructions: profile.instructions });
    },
  );
  server.registerTool(
    "query_memory",
    {
      description: "Search facts, instructions, turns and document text in scope, best first",
      inputSchema: {
        query: z.string().trim().min(1).max(2_000),
        scope: ScopeList.describe('the reader\'s scope, e.g. ["org=acme", "user=alice"]'),
        limit: z.number().int().min(1).max(100).optional(),
      },
    },
    async ({ query, scope, limit }) => {
      const input = { contextId, query, scope: normaliseScope(scope), limit: limit ?? 20, kinds: SEARCH_KINDS, match: "any" as const };
      const { results, retrievers } = await searchMemory(deps.db, input, deps.vector);
      return json({ query, results, retrievers });
    },
  );
  registerAgentTools(server, deps, contextId);
  registerOperatorTools(server, deps, contextId);
  return server;
}

/** The Express mount for createApp's extras: API-KEY check, then one stateless transport per POST. */
export function mcpEndpoint(deps: ApiDeps): Router {
  const router = Router({ mergeParams: true });
  router.use(requireContextKey(deps));
  router.post("/", async (req: Request, res: Response) => {
    const server = recallMcpServer(deps, contextIdOf(req));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => void Promise.all([transport.close(), server.close()]));
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  // Stateless: no standalone SSE stream (GET) and no session to end (DELETE).
  router.all("/", (_req: Request, res: Response) => {
    res
      .status(405)
      .set("Allow", "POST")
      .json({ jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed." }, id: null });
  });
  return router;
}
