// Recall over MCP (Streamable HTTP, stateless). Two endpoints, mounted as extras (an agent
// runtime, not the API contract, so neither is in the OpenAPI document):
// - /api/v1/{context_id}/mcp for agents, under the API-KEY rule of the HTTP API (a missing or
//   wrong key answers 401, a key of another context 404): memory tools only, and the context's
//   reviews (review before commit);
// - /api/v1/admin/mcp for operators, with Authorization: Bearer ADMIN_API_KEY: work items and
//   retries across contexts. An agent's key never reaches those tools.
// The tools call the same functions as the HTTP routes, so both answer the same.
import { McpServer, type RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ListToolsRequestSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { toJSONSchema, type ZodType } from "zod";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { Router, type Request, type RequestHandler, type Response } from "express";
import { requireAdmin, requireContextKey } from "../http/auth";
import type { ApiDeps } from "../deps";
import { contextIdOf } from "../http/validate";
import { registerAgentTools } from "./mcp-agent-tools";
import { registerOperatorTools } from "./mcp-operator-tools";
import { registerReadTools } from "./mcp-read-tools";
import { registerReviewTools } from "./mcp-review-tools";

export const MCP_PATH = "/api/v1/:contextId/mcp";
/** Mounted before MCP_PATH, which would otherwise take "admin" for a context id. */
export const ADMIN_MCP_PATH = "/api/v1/admin/mcp";

const VERSION = "0.1.0";

/** What an agent is told on connecting: the loop that keeps its memory right. */
export const AGENT_INSTRUCTIONS = `Recall is your long-term memory for one context (tenant). Work in this loop:
1. Before writing a system prompt, call get_context with the user's latest message and scope: paste its text (active instructions, relevant facts, open questions and matching excerpts, within max_tokens) and honour every instruction. get_profile lists every entity's attributes and relations instead.
2. After each turn worth keeping, call remember with its role, content and the same scope. It answers once the turn's extraction is committed, with the diff of what was learned; pass the session_id it returned with the next turns. With wait: false it answers at once; check it later with get_turn_status.
3. When unsure of a fact, do not guess: call query_memory (search) or get_state (what is true now, and the open unknowns). get_provenance shows where a fact came from, get_entity_history how an entity's values changed.
4. When the user asks you to forget something, call forget with the source the fact came from (get_provenance names it): everything learned from that turn, document or direct write is retracted, with an audit record.
5. When the context holds candidates for review (remember answers extraction status pending_review), list_reviews shows them with the quote each rests on; approve_review (optionally edited) commits one, reject_review drops it. Decide only as the person responsible asks you to.
Scope: a list ["org=acme", "user=alice"] or an object {"org": "acme", "user": "alice"}. A reader sees memory written in a subset of its scope; write with the narrowest scope that fits (a user's preference under user=…, a team fact under org=…).`;

export const ADMIN_INSTRUCTIONS = `Recall's operator tools, across every context: list_failed_work_items shows failed and dead pipeline work with its error class (context_id narrows it), get_work_item shows every attempt, retry_work_item runs a failed item again from its kept input once the cause (a provider, a budget) is fixed.`;

/** One server per request: stateless mode keeps nothing between calls, so any API process can answer any call. */
export function recallMcpServer(deps: ApiDeps, contextId: string): McpServer {
  const server = new McpServer({ name: "recall", version: VERSION }, { instructions: AGENT_INSTRUCTIONS });
  registerReadTools(server, deps, contextId);
  registerAgentTools(server, deps, contextId);
  registerReviewTools(server, deps, contextId);
  return listedStrictly(server);
}

export function recallAdminMcpServer(deps: ApiDeps): McpServer {
  const server = new McpServer({ name: "recall-admin", version: VERSION }, { instructions: ADMIN_INSTRUCTIONS });
  registerOperatorTools(server, deps);
  return listedStrictly(server);
}

/**
 * tools/list as strict clients read it (MCP Inspector --strict, a provider's strict tool mode): the SDK's listing,
 * but a nullable value is `anyOf: [{type: T, …}, {type: "null"}]` where Zod writes `type: [T, "null"]`. Inputs are
 * strict objects (`additionalProperties: false`), so an unknown argument is refused by name when called.
 */
function listedStrictly(server: McpServer): McpServer {
  // The SDK keeps its registry private and offers no hook on the listing; its entries are the public RegisteredTool.
  const tools = Reflect.get(server, "_registeredTools") as Record<string, RegisteredTool>;
  const schema = (zod: unknown, io: "input" | "output") =>
    withoutTypeLists(toJSONSchema(zod as ZodType, { target: "draft-7", io })) as Tool["inputSchema"];
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: Object.entries(tools)
      .filter(([, tool]) => tool.enabled)
      .map(([name, tool]) => ({
        name,
        title: tool.title,
        description: tool.description,
        annotations: tool.annotations,
        inputSchema: schema(tool.inputSchema, "input"),
        ...(tool.outputSchema ? { outputSchema: schema(tool.outputSchema, "output") } : {}),
      })),
  }));
  return server;
}

/** A JSON Schema with every `type: [A, B]` written as `anyOf` of one type each (the other keywords stay with A's branch). */
export function withoutTypeLists(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutTypeLists);
  if (!node || typeof node !== "object") return node;
  const entries = Object.entries(node).map(([key, value]) => [key, withoutTypeLists(value)] as const);
  const copy: Record<string, unknown> = Object.fromEntries(entries);
  if (!Array.isArray(copy.type)) return copy;
  const { type, ...rest } = copy as { type: string[] } & Record<string, unknown>;
  const [first, ...others] = type;
  return { anyOf: [{ ...rest, type: first }, ...others.map((t) => ({ type: t }))] };
}

/** The agents' endpoint for createApp's extras: API-KEY check, then one stateless transport per POST. */
export function mcpEndpoint(deps: ApiDeps): Router {
  return statelessEndpoint(requireContextKey(deps), (req) => recallMcpServer(deps, contextIdOf(req)));
}

/** The operators' endpoint: the admin key, then the operator tools. */
export function adminMcpEndpoint(deps: ApiDeps): Router {
  return statelessEndpoint(requireAdmin(deps), () => recallAdminMcpServer(deps));
}

function statelessEndpoint(auth: RequestHandler, serverFor: (req: Request) => McpServer): Router {
  const router = Router({ mergeParams: true });
  router.use(auth);
  router.post("/", async (req: Request, res: Response) => {
    const server = serverFor(req);
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
