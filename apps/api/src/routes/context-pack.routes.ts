// POST /context: one call for an agent's system prompt: the active instructions, the facts and open
// questions about what the message is about, and the excerpts that match it, packed into a token budget.
import { z } from "zod";
import { CONTEXT_LIMITS, readContext } from "@recall/memory";
import type { ApiDeps } from "../deps";
import { readWhereConsistent } from "../http/consistency";
import { defineRoute, type RouteDefinition } from "../http/route-definition";
import { ScopeBody } from "../http/scope-schema";
import { ContextResult } from "./memory.schemas";

const ContextParams = z.object({ contextId: z.string() });

export const ContextBody = z.object({
  message: z
    .string()
    .trim()
    .min(1, "must not be empty")
    .max(CONTEXT_LIMITS.messageChars)
    .describe("what the agent is answering: usually the user's latest message"),
  scope: ScopeBody,
  max_tokens: z
    .number()
    .int()
    .min(1)
    .max(CONTEXT_LIMITS.maxTokens)
    .default(CONTEXT_LIMITS.defaultTokens)
    .describe("the budget for `text`, in o200k tokens; never exceeded"),
  as_of: z.iso.datetime({ offset: true }).optional().describe("facts true then, instructions as they stood then, no later excerpts"),
  session_id: z.uuid("must be a session id").optional().describe("the conversation the agent is in: its turns are not repeated"),
});

export function contextPackRoutes(deps: ApiDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: "post",
      path: "/context",
      summary: "A system-prompt block for a message, packed into a token budget",
      description:
        "Active instructions first, then the facts current at `as_of` about the entities the message names or the best excerpts speak of, the open uncertainties about them, and the turns and document passages that match the message, chosen by relevance per token. `text` is ready to paste into a system prompt; `tokens` is its exact o200k count, never above `max_tokens`; `sections` lists what was packed with the ids to cite. Only memory visible to the reader's scope is read; retracted and erased sources never appear.",
      tags: ["memory"],
      params: ContextParams,
      body: ContextBody,
      bodyExample: { message: "Where should I book Alice's team dinner?", scope: { org: "acme", user: "alice" }, max_tokens: 1_000 },
      responses: { 200: { description: "The packed context", schema: ContextResult } },
      handle: async ({ params, body, req, res }) => {
        const pack = await readWhereConsistent(deps, req, res, (db) => readContext(db, contextInput(params.contextId, body), deps.vector));
        return { status: 200, body: pack };
      },
    }),
  ];
}

/** The reader's input from a parsed body; the MCP tool shares it. */
export function contextInput(contextId: string, body: z.output<typeof ContextBody>) {
  return {
    contextId,
    message: body.message,
    scope: body.scope,
    maxTokens: body.max_tokens,
    asOf: body.as_of ? new Date(body.as_of) : undefined,
    sessionId: body.session_id,
  };
}
