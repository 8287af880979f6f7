// Recall memory for the Vercel AI SDK (`ai`): the tools a model calls to read and change what it remembers, and
// the budgeted context (POST /context) as the system prompt of a generateText or streamText call.
// Every call goes through @recall/client, so its retries, idempotency keys and errors hold here too.
import { tool, type ToolSet } from "ai";
import { z } from "zod";
import type { RecallClient, Scope } from "@recall/client";

export interface RecallMemoryOptions {
  /** A client for the agent's context (`new RecallClient({ baseUrl, contextId, apiKey })`). */
  client: RecallClient;
  /** Whose memory: what is read is what this scope may see; what is remembered is written under it. */
  scope: Scope;
  /** The conversation the agent is in: `remember` posts to it, and /context leaves its turns out. Made on first use when absent. */
  sessionId?: string;
  /** Who "I" is in what the user says (the speaker's name on each remembered turn). */
  userName?: string;
}

/** The most a model may ask /context for at once; the service's own cap is higher. */
const MAX_CONTEXT_TOKENS = 8_000;
/** A remembered statement is a conversation turn; the service takes up to 100,000 characters, a tool call far less. */
const MAX_REMEMBER_CHARS = 10_000;

/**
 * The system prompt for one model call: your instructions, then what Recall knows that bears on `message`. Memory
 * being down never fails the call: after `timeoutMs` (default 3 s), or on any error, the prompt is your instructions
 * alone and `onWarning` (default console.warn) says why. Throw from `onWarning` to fail instead.
 */
export async function systemWithMemory(
  options: RecallMemoryOptions & {
    message: string;
    instructions?: string;
    maxTokens?: number;
    timeoutMs?: number;
    onWarning?: (message: string, error: unknown) => void;
  },
): Promise<string> {
  const warn =
    options.onWarning ??
    ((message: string, error: unknown) => console.warn(`[recall] ${message}: ${error instanceof Error ? error.message : String(error)}`));
  let memory = "";
  try {
    const pack = await options.client.context(
      {
        message: options.message,
        scope: options.scope,
        max_tokens: options.maxTokens ?? 1_000,
        ...(options.sessionId ? { session_id: options.sessionId } : {}),
      },
      { signal: AbortSignal.timeout(options.timeoutMs ?? 3_000) },
    );
    memory = pack.text;
  } catch (error) {
    warn("no memory for this call: /context failed", error);
  }
  return [options.instructions, memory].filter((part) => part && part.trim() !== "").join("\n\n");
}

/**
 * Tools for `generateText({ tools: recallTools(…) })`: `recall_context` and `recall_profile` read memory,
 * `remember` stores what the user said as a turn of the session (extracted and committed as any turn is),
 * `forget` retracts what a remembered turn taught (its facts leave memory; the retraction is kept for audit).
 */
export function recallTools(options: RecallMemoryOptions): ToolSet {
  const { client, scope } = options;
  let session: Promise<string> | undefined = options.sessionId ? Promise.resolve(options.sessionId) : undefined;
  const sessionId = () => (session ??= client.sessions.create().then((s) => s.session_id));
  return {
    recall_context: tool({
      description: "Read what is remembered that bears on a message: standing instructions, current facts, past turns.",
      inputSchema: z.object({
        message: z.string().min(1).max(MAX_REMEMBER_CHARS).describe("what the user asked or said"),
        max_tokens: z.number().int().min(100).max(MAX_CONTEXT_TOKENS).optional().describe("budget of the answer (default 1000)"),
      }),
      execute: async ({ message, max_tokens }) => {
        const pack = await client.context({ message, scope, max_tokens: max_tokens ?? 1_000, session_id: await sessionId() });
        return { text: pack.text, tokens: pack.tokens };
      },
    }),
    recall_profile: tool({
      description: "Read the known entities with their current facts, and the standing instructions.",
      inputSchema: z.object({}),
      execute: async () => {
        const profile = await client.profile(scope);
        return {
          entities: profile.entities.map((e) => ({ name: e.name, facts: e.attributes.map((a) => `${a.key}: ${a.value}`) })),
          instructions: profile.instructions.map((i) => i.description),
        };
      },
    }),
    remember: tool({
      description: "Remember something the user said about themselves, their work or how they want to be answered.",
      inputSchema: z.object({ content: z.string().min(1).max(MAX_REMEMBER_CHARS).describe("the user's statement, in their words") }),
      execute: async ({ content }) => {
        const turn = await client.turns.post(await sessionId(), {
          role: "user",
          content,
          scope,
          ...(options.userName ? { name: options.userName } : {}),
        });
        // A 202 (still extracting) has no diff yet: it is remembered all the same, and readable once committed.
        return { turn_id: turn.turn_id, status: turn.extraction.status, learned: "diff" in turn ? turn.diff : null };
      },
    }),
    forget: tool({
      description: "Forget what a remembered statement taught, by the turn_id `remember` returned.",
      inputSchema: z.object({
        turn_id: z.uuid().describe("the turn to forget"),
        reason: z.string().min(1).max(500).describe("why, kept with the retraction"),
      }),
      execute: async ({ turn_id, reason }) => {
        const retraction = await client.retractions.turn(turn_id, { reason });
        return { retracted: retraction.retraction_id };
      },
    }),
  };
}

export { recallMiddleware, type RecallMiddlewareOptions } from "./recall-middleware.js";
