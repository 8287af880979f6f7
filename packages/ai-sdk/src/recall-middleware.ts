// Memory that does not depend on the model: a middleware for `wrapLanguageModel`. Before each call the budgeted
// context (POST /context) for the last user message joins the system prompt; after it, the user's message and the
// model's reply are recorded as turns of the session, each under an idempotency key, whatever the model did with
// its tools. Recall being down costs the call its memory, never the call: each Recall request is bounded by a
// timeout, and a failure is a warning.
// Written against the v3 middleware shape, which `ai` 6 requires and `ai` 7 still takes.
import type { LanguageModelMiddleware } from "ai";
import { RecallClient, type Scope } from "@recall/client";

export interface RecallMiddlewareOptions {
  /** Where Recall listens; default RECALL_URL. */
  baseUrl?: string;
  /** The context's API key; default RECALL_API_KEY. */
  apiKey?: string;
  /** The context the memory is kept in; default RECALL_CONTEXT_ID. */
  contextId?: string;
  /** A client to use instead of one made from the three options above. */
  client?: RecallClient;
  /** The conversation the turns are recorded in (`client.sessions.create()`). */
  sessionId: string;
  /** Whose memory: what is read is what this scope may see, what is recorded is written under it. Default unscoped. */
  scope?: Scope;
  /** The user's name, so "I" and "my" in their messages are theirs. */
  userName?: string;
  /** Budget of the context in the system prompt, in tokens (default 1,000). */
  maxTokens?: number;
  /** Each Recall request, retries included, gives up after this long (default 3,000 ms); the call then goes on without it. */
  timeoutMs?: number;
  /** Where a failed Recall request is reported (default console.warn). */
  onWarning?: (message: string, error: unknown) => void;
}

type Params = Parameters<NonNullable<LanguageModelMiddleware["transformParams"]>>[0]["params"];
type Message = Params["prompt"][number];
type Streamed = Awaited<ReturnType<Parameters<NonNullable<LanguageModelMiddleware["wrapStream"]>>[0]["doStream"]>>;
type StreamPart = Streamed["stream"] extends ReadableStream<infer P> ? P : never;

/** /context takes messages of up to 8,000 characters; a longer one is asked about by its end. */
const MAX_MESSAGE_CHARS = 8_000;

/**
 * `wrapLanguageModel({ model, middleware: recallMiddleware({ sessionId, scope }) })`: the model's calls get what
 * Recall knows in their system prompt, and every exchange is remembered.
 */
export function recallMiddleware(options: RecallMiddlewareOptions): LanguageModelMiddleware {
  const client = options.client ?? new RecallClient({ baseUrl: options.baseUrl, apiKey: options.apiKey, contextId: options.contextId });
  const timeoutMs = options.timeoutMs ?? 3_000;
  const warn = options.onWarning ?? ((message, error) => console.warn(`[recall] ${message}: ${describe(error)}`));
  // One /context read and one recorded user turn per user message, however many steps a tool loop takes.
  const contexts = new Map<string, Promise<string>>();
  const recorded = new Map<string, Promise<void>>();
  const bounded = () => ({ signal: AbortSignal.timeout(timeoutMs) });

  const contextFor = (asked: Asked): Promise<string> => {
    let text = contexts.get(asked.key);
    if (!text) {
      text = client
        .context(
          {
            message: asked.text.slice(-MAX_MESSAGE_CHARS),
            max_tokens: options.maxTokens ?? 1_000,
            ...(options.scope ? { scope: options.scope } : {}),
            // The conversation's own turns are left out only when the prompt holds them already.
            ...(asked.history ? { session_id: options.sessionId } : {}),
          },
          bounded(),
        )
        .then(
          (pack) => pack.text,
          (error: unknown) => {
            contexts.delete(asked.key);
            warn("no memory for this call: /context failed", error);
            return "";
          },
        );
      contexts.set(asked.key, text);
    }
    return text;
  };

  const record = (key: string, role: "user" | "assistant", content: string): Promise<void> => {
    let done = recorded.get(key);
    if (!done) {
      done = client.turns
        .post(
          options.sessionId,
          {
            role,
            content,
            wait: false,
            ...(options.scope ? { scope: options.scope } : {}),
            ...(role === "user" && options.userName ? { name: options.userName } : {}),
          },
          { ...bounded(), idempotencyKey: key },
        )
        .then(
          () => undefined,
          (error: unknown) => {
            recorded.delete(key);
            warn(`the ${role}'s turn was not recorded`, error);
          },
        );
      recorded.set(key, done);
    }
    return done;
  };

  /** Records the user's message now and the reply once `reply` resolves; the user's turn always comes first. */
  const recordExchange = async (params: Params, reply: Promise<string>) => {
    const asked = await lastUserMessage(params.prompt, options.sessionId);
    const user = asked ? record(asked.key, "user", asked.text) : Promise.resolve();
    const text = await reply;
    await user;
    if (asked && text.trim() !== "") await record(await keyOf(options.sessionId, "assistant", params.prompt, text), "assistant", text);
  };

  return {
    specificationVersion: "v3",
    transformParams: async ({ params }) => {
      const asked = await lastUserMessage(params.prompt, options.sessionId);
      const memory = asked ? await contextFor(asked) : "";
      return memory.trim() === "" ? params : { ...params, prompt: withSystem(params.prompt, memory) };
    },
    wrapGenerate: async ({ doGenerate, params }) => {
      const result = doGenerate();
      const replied = Promise.resolve(result).then(
        (r) => r.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join(""),
        () => "",
      );
      await Promise.all([recordExchange(params, replied), result]);
      return result;
    },
    wrapStream: async ({ doStream, params }) => {
      const { stream, ...rest } = await doStream();
      let text = "";
      let finish: (reply: string) => void = () => undefined;
      const recording = recordExchange(params, new Promise<string>((resolve) => (finish = resolve)));
      const collect = new TransformStream<StreamPart, StreamPart>({
        transform(part, controller) {
          if (part.type === "text-delta") text += part.delta;
          controller.enqueue(part);
        },
        async flush() {
          finish(text);
          await recording;
        },
      });
      return { stream: stream.pipeThrough(collect), ...rest };
    },
  };
}

interface Asked {
  /** The idempotency key of the user's turn: the session and the conversation up to this message. */
  key: string;
  text: string;
  /** The prompt holds earlier messages of the conversation. */
  history: boolean;
}

/** The last user message's text, with what identifies it in its conversation. */
async function lastUserMessage(prompt: Message[], sessionId: string): Promise<Asked | undefined> {
  const at = prompt.findLastIndex((m) => m.role === "user");
  if (at === -1) return undefined;
  const message = prompt[at]!;
  const text = message.role === "user" ? message.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n") : "";
  if (text.trim() === "") return undefined;
  const conversation = prompt.slice(0, at + 1);
  return {
    key: await keyOf(sessionId, "user", conversation, ""),
    text,
    history: conversation.filter((m) => m.role !== "system").length > 1,
  };
}

/** A key the service accepts (no `:`), the same for the same exchange in the same session; system prompts aside. */
async function keyOf(sessionId: string, role: string, conversation: Message[], reply: string): Promise<string> {
  const said = conversation.filter((m) => m.role !== "system").map((m) => [m.role, m.content]);
  const bytes = new TextEncoder().encode(JSON.stringify([sessionId, role, said, reply]));
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  const digest = Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("");
  return `recall-ai-sdk-${role}-${digest}`;
}

/** The memory appended to the first system message, or as a system message of its own before the conversation. */
function withSystem(prompt: Message[], memory: string): Message[] {
  const first = prompt[0];
  if (first?.role === "system") return [{ ...first, content: `${first.content}\n\n${memory}` }, ...prompt.slice(1)];
  return [{ role: "system", content: memory }, ...prompt];
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
