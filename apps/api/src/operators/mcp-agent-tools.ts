// MCP tools for agents: remember (post a turn), forget (retract a source), get_state and
// get_instructions. Each calls what the matching HTTP route calls, so both answer the same.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { normaliseScope, readInstructionHistory, readState } from "@recall/memory";
import type { ApiDeps } from "../deps";
import { AppError } from "../http/errors";
import { encodeCursor } from "../http/pagination";
import { ScopeList } from "../http/scope-schema";
import { instructionView } from "../routes/instructions.routes";
import { view as retractionView } from "../routes/retractions.routes";
import { CreateTurnBody } from "../routes/sessions.schemas";
import { RetractionService } from "../services/retraction.service";

export const json = (value: unknown): CallToolResult => ({ content: [{ type: "text", text: JSON.stringify(value) }] });
export const toolError = (message: string): CallToolResult => ({ isError: true, content: [{ type: "text", text: message }] });

const scopeArg = ScopeList.describe('the reader\'s scope, e.g. ["org=acme", "user=alice"]');

/** Refusals the HTTP API answers with 4xx become tool errors carrying the same message. */
export async function asTool(fn: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError) return toolError(err.message);
    throw err;
  }
}

export function registerAgentTools(server: McpServer, deps: ApiDeps, contextId: string): void {
  const turns = deps.turnService;
  const retractions = new RetractionService(deps);
  server.registerTool(
    "remember",
    {
      description: "Post a conversation turn; answers once its extraction is committed, with what was learned (the diff)",
      inputSchema: { session_id: z.uuid().optional().describe("omit to start a new session"), ...CreateTurnBody.shape },
    },
    ({ session_id, ...turn }) =>
      asTool(async () => {
        const sessionId = session_id ?? (await turns.createSession(contextId));
        const added = await turns.addTurn(contextId, sessionId, CreateTurnBody.parse(turn));
        const { id: turn_id, traceId: trace_id } = added.turn;
        if (!added.waited) return json({ session_id: sessionId, turn_id, extraction: { status: "pending" }, trace_id });
        return json({ session_id: sessionId, turn_id, diff: added.diff, extraction: added.extraction, trace_id });
      }),
  );
  server.registerTool(
    "forget",
    {
      description: "Retract everything learned from one turn, document or direct write (delete by source), with an audit record",
      inputSchema: {
        source_type: z.enum(["turn", "document", "fact_write"]),
        source_id: z.uuid(),
        reason: z.string().trim().min(1).max(1_000),
      },
    },
    ({ source_type, source_id, reason }) =>
      asTool(async () =>
        json(retractionView(source_type, source_id, await retractions.retract(contextId, source_type, source_id, reason))),
      ),
  );
  server.registerTool(
    "get_state",
    {
      description: "Facts true now (or at as_of) in scope, the active instructions and open unknowns, as POST /state answers",
      inputSchema: { scope: scopeArg, as_of: z.iso.datetime({ offset: true }).optional(), include_resolved: z.boolean().optional() },
    },
    async ({ scope, as_of, include_resolved }) => {
      const state = await readState(deps.db, {
        contextId,
        scope: normaliseScope(scope),
        asOf: as_of ? new Date(as_of) : undefined,
        includeResolved: include_resolved ?? false,
        limit: 500,
      });
      const { next, ...rest } = state;
      return json({ ...rest, next_cursor: encodeCursor(next) });
    },
  );
  server.registerTool(
    "get_instructions",
    {
      description: "Instructions in scope with who gave them and when; include_revoked adds revoked ones with who revoked them",
      inputSchema: { scope: scopeArg, include_revoked: z.boolean().optional() },
    },
    async ({ scope, include_revoked }) => {
      const page = await readInstructionHistory(
        deps.db,
        { contextId, scope: normaliseScope(scope) },
        { includeRevoked: include_revoked ?? false, limit: 500 },
      );
      return json({ instructions: page.items.map(instructionView), next_cursor: encodeCursor(page.next) });
    },
  );
}
