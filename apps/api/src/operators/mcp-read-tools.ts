// MCP tools that read memory: each answers what its HTTP route answers, as text and as
// structuredContent checked against the route's own response schema (its outputSchema).
// `scope` is the HTTP body's: a list ["org=acme", "user=alice"] or an object {"org": "acme"}.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { SEARCH_KINDS, readContext, readEntityHistory, readInstructionHistory, readProfile, readState, searchMemory } from "@recall/memory";
import type { ApiDeps } from "../deps";
import { cursorParam, encodeCursor } from "../http/pagination";
import { ScopeBody } from "../http/scope-schema";
import { ContextBody, contextInput } from "../routes/context-pack.routes";
import { DocumentStatus } from "../routes/documents.schemas";
import {
  ContextResult,
  History,
  InstructionPage,
  Profile,
  Provenance,
  QueryResult,
  State,
  instructionView,
} from "../routes/memory.schemas";
import { TurnResult } from "../routes/sessions.schemas";
import { documentStatus } from "../views/pipeline-status";
import { provenanceView } from "../views/provenance-view";
import { turnStatusView } from "../views/turn-result";
import { READ_ONLY, structured, toolError } from "./mcp-agent-tools";

const PROFILE_LIMIT = 50;
const STATE_LIMIT = 500;
const scope = ScopeBody;

export function registerReadTools(server: McpServer, deps: ApiDeps, contextId: string): void {
  registerMemoryReads(server, deps, contextId);
  registerSourceReads(server, deps, contextId);
}

/** What is known: context, profile, state, instructions, search. */
function registerMemoryReads(server: McpServer, deps: ApiDeps, contextId: string): void {
  server.registerTool(
    "get_context",
    {
      title: "Context for a system prompt",
      description:
        "One block for the system prompt, within max_tokens (default 1500): the active instructions, the facts and open questions " +
        "about what the message is about, and the past turns and document passages that match it. Paste `text`; honour every instruction.",
      inputSchema: ContextBody.strict(),
      outputSchema: ContextResult,
      annotations: READ_ONLY,
    },
    async (args) => structured(await readContext(deps.db, contextInput(contextId, args), deps.vector)),
  );
  server.registerTool(
    "get_profile",
    {
      title: "Read the profile",
      description:
        "Entities in scope with their current attributes and relations, and the active instructions. Call it before " +
        "writing a system prompt: state the attributes and honour every instruction.",
      inputSchema: z.strictObject({ scope }),
      outputSchema: Profile.pick({ entities: true, instructions: true }),
      annotations: READ_ONLY,
    },
    async ({ scope }) => {
      const profile = await readProfile(deps.db, { contextId, scope, limit: PROFILE_LIMIT });
      return structured({ entities: profile.entities, instructions: profile.instructions });
    },
  );
  server.registerTool(
    "query_memory",
    {
      title: "Search memory",
      description:
        "Search facts, instructions, turns and document text in scope, best first. Use it when unsure rather than guess. " +
        "A text over 1,000 characters comes as an excerpt around the matched words (`truncated: true`).",
      inputSchema: z.strictObject({
        query: z.string().trim().min(1).max(2_000),
        scope,
        limit: z.number().int().min(1).max(100).optional(),
      }),
      outputSchema: QueryResult,
      annotations: READ_ONLY,
    },
    async ({ query, scope, limit }) => {
      const input = { contextId, query, scope, limit: limit ?? 20, kinds: SEARCH_KINDS, match: "any" as const };
      const { results, retrievers } = await searchMemory(deps.db, input, deps.vector);
      return structured({ query, results, retrievers });
    },
  );
  server.registerTool(
    "get_state",
    {
      title: "Read the current state",
      description: "Facts true now (or at as_of) in scope, the active instructions and open unknowns, as POST /state answers",
      inputSchema: z.strictObject({ scope, as_of: z.iso.datetime({ offset: true }).optional(), include_resolved: z.boolean().optional() }),
      outputSchema: State,
      annotations: READ_ONLY,
    },
    async ({ scope, as_of, include_resolved }) => {
      const asOf = as_of ? new Date(as_of) : undefined;
      const state = await readState(deps.db, { contextId, scope, asOf, includeResolved: include_resolved ?? false, limit: STATE_LIMIT });
      const { next, ...rest } = state;
      return structured({ ...rest, next_cursor: encodeCursor(next) });
    },
  );
  server.registerTool(
    "get_instructions",
    {
      title: "List instructions",
      description: "Instructions in scope with who gave them and when; include_revoked adds revoked ones with who revoked them",
      inputSchema: z.strictObject({ scope, include_revoked: z.boolean().optional() }),
      outputSchema: InstructionPage,
      annotations: READ_ONLY,
    },
    async ({ scope, include_revoked }) => {
      const options = { includeRevoked: include_revoked ?? false, limit: STATE_LIMIT };
      const page = await readInstructionHistory(deps.db, { contextId, scope }, options);
      return structured({ instructions: page.items.map(instructionView), next_cursor: encodeCursor(page.next) });
    },
  );
}

/** Where memory came from and how far input got: provenance, history, turn and document status. */
function registerSourceReads(server: McpServer, deps: ApiDeps, contextId: string): void {
  server.registerTool(
    "get_provenance",
    {
      title: "Where a fact came from",
      description:
        "A fact's source: the turn or document node, the byte span and its quote, the extraction stage and model, the trace " +
        "and work items. fact_id may be an attribute, relation, assertion or instruction id.",
      inputSchema: z.strictObject({ fact_id: z.uuid("must be a fact id"), scope }),
      outputSchema: Provenance,
      annotations: READ_ONLY,
    },
    async ({ fact_id, scope }) => {
      const found = await provenanceView(deps.db, { contextId, scope }, fact_id);
      return found ? structured(found) : toolError(`fact ${fact_id} not found in this context and scope`);
    },
  );
  server.registerTool(
    "get_entity_history",
    {
      title: "An entity's history",
      description: "Every value an entity's attributes and relations had, in valid-time order, with which one is current",
      inputSchema: z.strictObject({
        entity_id: z.uuid("must be an entity id"),
        scope,
        limit: z.number().int().min(1).max(1_000).optional().describe("page size (default 200)"),
        cursor: cursorParam("time"),
      }),
      outputSchema: History,
      annotations: READ_ONLY,
    },
    async ({ entity_id, scope, limit, cursor }) => {
      const history = await readEntityHistory(deps.db, { contextId, entityId: entity_id, scope, limit: limit ?? 200, after: cursor });
      if (!history) return toolError(`entity ${entity_id} not found in this context and scope`);
      return structured({ entity: history.entity, values: history.values, next_cursor: encodeCursor(history.next) });
    },
  );
  server.registerTool(
    "get_turn_status",
    {
      title: "A turn's extraction status",
      description:
        "A turn's extraction: pending, committed (with its diff) or failed (with the work item). For turns remembered with wait: false.",
      inputSchema: z.strictObject({ session_id: z.uuid("must be a session id"), turn_id: z.uuid("must be a turn id") }),
      outputSchema: TurnResult,
      annotations: READ_ONLY,
    },
    async ({ session_id, turn_id }) => {
      const status = await turnStatusView(deps.db, { contextId, sessionId: session_id, turnId: turn_id });
      return status ? structured(status) : toolError(`turn ${turn_id} not found in session ${session_id}`);
    },
  );
  server.registerTool(
    "get_doc_pipeline_status",
    {
      title: "A document's pipeline status",
      description:
        "A document's pipeline progress: state (queued, processing, committed, failed), stages, extraction plan, rejected candidates",
      inputSchema: z.strictObject({ document_id: z.uuid("must be a document id") }),
      outputSchema: DocumentStatus,
      annotations: READ_ONLY,
    },
    async ({ document_id }) => {
      const status = await documentStatus(deps.db, contextId, document_id);
      return status ? structured(status) : toolError(`document ${document_id} not found in this context`);
    },
  );
}
