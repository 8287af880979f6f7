// MCP tools that write memory for agents: remember (post a turn), add_document, write_facts and forget
// (retract a source). Each calls what the matching HTTP route calls, so both answer the same. The shared
// pieces of every MCP tool (results, annotations, refusals) live here too.
import { DECISION_TEXT_CHARS, DomainError } from "@recall/contracts";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { ApiDeps } from "../deps";
import { documentFromJson } from "../routes/document-upload";
import { documentAcceptedView } from "../routes/documents.routes";
import { CreateDocumentBody, DocumentAccepted } from "../routes/documents.schemas";
import { FactWriteAccepted, FactWriteBody, FactWriteResult } from "../routes/fact-write.schemas";
import { factWriteService, factWriteView } from "../routes/facts.routes";
import { RetractionView, retractionView } from "../routes/retractions.schemas";
import { CreateTurnBody, TurnResult } from "../routes/sessions.schemas";
import { DocumentService } from "../services/document.service";
import { newTraceId } from "@recall/telemetry";
import { RetractionService } from "../services/retraction.service";

/** JSON as text, for clients that read content only. */
export const json = (value: unknown): CallToolResult => ({ content: [{ type: "text", text: JSON.stringify(value) }] });

/**
 * A tool with an outputSchema answers its value as structuredContent too, in its wire form (dates as
 * strings) so the server's and the client's schema checks see what the HTTP API would send.
 */
export const structured = (value: unknown): CallToolResult => {
  const wire = JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
  return { content: [{ type: "text", text: JSON.stringify(wire) }], structuredContent: wire };
};

export const toolError = (message: string): CallToolResult => ({ isError: true, content: [{ type: "text", text: message }] });

/** Nothing outside Recall is touched by any tool (openWorldHint false). */
export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const APPENDS: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
const RETRACTS: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };

/** Refusals the HTTP API answers with 4xx become tool errors carrying the same message. */
export async function asTool(fn: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof DomainError) return toolError(err.message);
    throw err;
  }
}

/** What remember answers: the turn's result as POST …/turns gives it, with the session to pass next time. */
const RememberResult = z.object({
  session_id: z.uuid().describe("pass it with the next turns of this conversation"),
  turn_id: z.uuid(),
  diff: TurnResult.shape.diff.optional().describe("what the turn taught, once committed"),
  extraction: TurnResult.shape.extraction.partial({ stage: true }),
  trace_id: z.string(),
});

/** A direct write's answer: committed (the ids it made), or stored for a worker to commit (its status). */
const WriteFactsResult = FactWriteResult.partial().extend({
  ...FactWriteAccepted.partial().shape,
  fact_write_id: z.uuid(),
  work_item_id: z.uuid(),
  trace_id: z.string(),
});

export function registerAgentTools(server: McpServer, deps: ApiDeps, contextId: string): void {
  const turns = deps.turnService;
  const retractions = new RetractionService(deps);
  const documents = new DocumentService(deps, { blobDir: deps.config.RECALL_BLOB_DIR });
  const writes = factWriteService(deps);
  server.registerTool(
    "remember",
    {
      title: "Remember a conversation turn",
      description:
        "Post a conversation turn: role (user, assistant, system or tool) and content are required. " +
        "Answers once its extraction is committed, with what was learned (the diff). " +
        "Pass the session_id it answered to keep later turns in the same session. wait: false answers at once; " +
        "follow the turn with get_turn_status. A shared image goes in attachments with its caption or alt text " +
        "(they are remembered like the content; a URL is stored, never fetched).",
      inputSchema: z.strictObject({ session_id: z.uuid().optional().describe("omit to start a new session"), ...CreateTurnBody.shape }),
      outputSchema: RememberResult,
      annotations: APPENDS,
    },
    ({ session_id, ...turn }) =>
      asTool(async () => {
        const sessionId = session_id ?? (await turns.createSession(contextId));
        const body = CreateTurnBody.parse(turn);
        // As POST …/turns: wait: false stores and queues the turn, and answers at once.
        if (!body.wait) {
          const accepted = await turns.acceptTurn(contextId, sessionId, body);
          return structured({ session_id: sessionId, turn_id: accepted.id, extraction: { status: "pending" }, trace_id: accepted.traceId });
        }
        const added = await turns.addTurn(contextId, sessionId, body);
        const { id: turn_id, traceId: trace_id } = added.turn;
        if (!added.waited) return structured({ session_id: sessionId, turn_id, extraction: { status: "pending" }, trace_id });
        return structured({ session_id: sessionId, turn_id, diff: added.diff, extraction: added.extraction, trace_id });
      }),
  );
  server.registerTool(
    "add_document",
    {
      title: "Add a document",
      description:
        "Store a document (text, Markdown or HTML) under a scope; its passages are extracted like turns. The same text " +
        "in the same scope is stored once. Follow it with get_doc_pipeline_status.",
      inputSchema: CreateDocumentBody.strict(),
      outputSchema: DocumentAccepted,
      annotations: APPENDS,
    },
    (body) =>
      asTool(async () => {
        const input = documentFromJson(body, deps.config.RECALL_DOCUMENT_MAX_BYTES);
        return structured(documentAcceptedView(await documents.ingest(contextId, input, newTraceId())));
      }),
  );
  server.registerTool(
    "write_facts",
    {
      title: "Write facts directly",
      description:
        "State entities, attributes, relations or instructions on purpose (not read from text): validated, committed and " +
        "truth-maintained like extracted facts, all or nothing.",
      inputSchema: FactWriteBody.strict(),
      outputSchema: WriteFactsResult,
      annotations: APPENDS,
    },
    ({ scope, ...diff }) => asTool(async () => structured(factWriteView(contextId, await writes.write(contextId, scope, diff)))),
  );
  server.registerTool(
    "forget",
    {
      title: "Forget a source",
      description:
        "Retract everything learned from one turn, document or direct write (delete by source), with an audit record. " +
        "The facts stop being read at once; the raw text stays. get_provenance names a fact's source.",
      inputSchema: z.strictObject({
        source_type: z.enum(["turn", "document", "fact_write"]),
        source_id: z.uuid(),
        reason: z.string().trim().min(1).max(DECISION_TEXT_CHARS).describe("why, kept in the audit record"),
      }),
      outputSchema: RetractionView,
      annotations: RETRACTS,
    },
    ({ source_type, source_id, reason }) =>
      asTool(async () =>
        structured(retractionView(source_type, source_id, await retractions.retract(contextId, source_type, source_id, reason))),
      ),
  );
}
