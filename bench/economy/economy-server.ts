// A counting OpenAI-compatible server for pnpm bench:economy: POST /v1/chat/completions and
// /v1/embeddings, answered at once and the same way for every peer. A chat request asking
// for a strict json_schema (Recall's extraction diff) gets an empty diff; one asking for a
// json_object (mem0's memory list) gets `{"memory":[]}`, or with `mem0Answer: "echo"` one
// memory repeating the new message. Usage is reported as one token per four characters of
// the request body (and of the answer), the same rule for everyone.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { embeddingInputs, embeddingReply, embeddingsState } from "@recall/test-support";

export type Mem0Answer = "empty" | "echo";

export interface EconomyCounts {
  chatCalls: number;
  /** Chat calls by the model name the client sent (Recall's fast and strong tiers). */
  chatByModel: Record<string, number>;
  /** Characters of the chat messages' contents: what the model reads. */
  promptChars: number;
  /** Characters of the chat request bodies (messages plus schema, options): what the tokens are estimated from. */
  chatBodyChars: number;
  /** Estimated prompt tokens reported back in `usage`, ceil(body chars / 4) per request. */
  chatTokens: number;
  completionTokens: number;
  embeddingCalls: number;
  embeddingInputs: number;
  embeddingChars: number;
  embeddingTokens: number;
  /** Time spent inside the request handlers, to subtract from a peer's wall time. */
  serverMs: number;
  /** Requests the server could not answer (wrong route, unknown response_format). */
  unanswered: number;
}

export interface EconomyServer {
  /** The OpenAI SDK baseURL (it appends /chat/completions, /embeddings). */
  baseUrl: string;
  counts: EconomyCounts;
  /** When each chat request arrived (ms, performance clock): what an RPM limit is checked against. */
  chatTimes: number[];
  close(): Promise<void>;
}

export interface EconomyServerOptions {
  /** Answer each chat request this long after it arrived (a model-bound run); default at once. */
  chatDelayMs?: number;
}

const EMPTY_DIFF = { entities: [], attributes: [], relations: [], instructions: [], revocations: [], uncertainties: [] };

export const estimateTokens = (chars: number): number => Math.ceil(chars / 4);

export function emptyCounts(): EconomyCounts {
  return {
    chatCalls: 0,
    chatByModel: {},
    promptChars: 0,
    chatBodyChars: 0,
    chatTokens: 0,
    completionTokens: 0,
    embeddingCalls: 0,
    embeddingInputs: 0,
    embeddingChars: 0,
    embeddingTokens: 0,
    serverMs: 0,
    unanswered: 0,
  };
}

export async function startEconomyServer(mem0Answer: Mem0Answer = "empty", options: EconomyServerOptions = {}): Promise<EconomyServer> {
  const counts = emptyCounts();
  const chatTimes: number[] = [];
  const vectors = embeddingsState();
  const server = http.createServer((req, res) => {
    const arrived = performance.now();
    const chat = (req.url ?? "").startsWith("/v1/chat");
    if (chat) chatTimes.push(arrived);
    void readBody(req).then(async (raw) => {
      const started = performance.now();
      const reply = answer(req.url ?? "", raw, { counts, vectors, mem0Answer });
      counts.serverMs += performance.now() - started;
      const wait = chat ? (options.chatDelayMs ?? 0) - (performance.now() - arrived) : 0;
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      res.writeHead(reply.status, { "content-type": "application/json" });
      res.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    counts,
    chatTimes,
    close: () => {
      // The SDKs keep sockets alive; close() would wait for them otherwise.
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}

interface State {
  counts: EconomyCounts;
  vectors: ReturnType<typeof embeddingsState>;
  mem0Answer: Mem0Answer;
}

interface Reply {
  status: number;
  body: unknown;
}

function answer(url: string, raw: string, state: State): Reply {
  const path = url.split("?")[0];
  const body = parseObject(raw);
  if (body && path === "/v1/chat/completions") return chat(body, raw.length, state);
  if (body && path === "/v1/embeddings") return embeddings(body, raw.length, state);
  state.counts.unanswered += 1;
  return { status: 404, body: { error: { message: `economy server: no route ${path}`, type: "invalid_request_error" } } };
}

function chat(body: Record<string, unknown>, bodyChars: number, { counts, mem0Answer }: State): Reply {
  const messages = Array.isArray(body.messages) ? (body.messages as { content?: unknown }[]) : [];
  const format = (body.response_format as { type?: string } | undefined)?.type;
  const content = format === "json_schema" ? EMPTY_DIFF : format === "json_object" ? mem0Memories(messages, mem0Answer) : undefined;
  if (content === undefined) {
    counts.unanswered += 1;
    return {
      status: 400,
      body: { error: { message: `economy server: unexpected response_format ${format}`, type: "invalid_request_error" } },
    };
  }
  const model = typeof body.model === "string" ? body.model : "unknown";
  const text = JSON.stringify(content);
  const [prompt, completion] = [estimateTokens(bodyChars), estimateTokens(text.length)];
  counts.chatCalls += 1;
  counts.chatByModel[model] = (counts.chatByModel[model] ?? 0) + 1;
  counts.promptChars += messages.reduce((n, m) => n + (typeof m.content === "string" ? m.content.length : 0), 0);
  counts.chatBodyChars += bodyChars;
  counts.chatTokens += prompt;
  counts.completionTokens += completion;
  const choice = { index: 0, message: { role: "assistant", content: text, refusal: null }, finish_reason: "stop", logprobs: null };
  const usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  return {
    status: 200,
    body: { id: `chatcmpl-economy${counts.chatCalls}`, object: "chat.completion", created: 0, model, choices: [choice], usage },
  };
}

/** mem0 puts the new message between these headings of its user prompt (the last message; its system prompt has examples). */
function mem0Memories(messages: { content?: unknown }[], mode: Mem0Answer): { memory: { id: string; text: string }[] } {
  if (mode === "empty") return { memory: [] };
  const last = messages[messages.length - 1]?.content;
  const user = typeof last === "string" ? last : "";
  const said = /## New Messages\n([\s\S]*?)\n\n## Observation Date/
    .exec(user)?.[1]
    ?.replace(/^user: /, "")
    .trim();
  return { memory: said ? [{ id: "0", text: said }] : [] };
}

function embeddings(body: Record<string, unknown>, bodyChars: number, { counts, vectors }: State): Reply {
  const inputs = embeddingInputs(body);
  if (!inputs) {
    counts.unanswered += 1;
    return { status: 400, body: { error: { message: "economy server: input must be non-empty strings", type: "invalid_request_error" } } };
  }
  const tokens = estimateTokens(bodyChars);
  counts.embeddingCalls += 1;
  counts.embeddingInputs += inputs.length;
  counts.embeddingChars += inputs.reduce((n, t) => n + t.length, 0);
  counts.embeddingTokens += tokens;
  return { status: 200, body: embeddingReply(vectors, body, inputs, tokens) };
}

export function parseObject(raw: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(raw);
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
