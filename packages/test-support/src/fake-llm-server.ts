// A local HTTP server speaking the Anthropic Messages, OpenAI Chat Completions and OpenAI
// Embeddings wire protocols, so tests drive the real provider SDKs (serialization, headers,
// error mapping, timeouts) instead of a test double standing in for them.
//
// One shared FIFO queue serves both chat routes: each request takes the next scripted answer,
// whichever provider it was sent to. With the queue empty, a responder set with respondWith()
// answers (a function of the request: long-running tests that cannot script every call);
// without one the server answers 418 with a message saying so, which a test sees as a failed
// call rather than a hang. Embeddings are
// answered by fake-embeddings.ts, with a script of their own.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { embeddingInputs, embeddingReply, embeddingsState, type EmbeddingsState, type FakeEmbeddings } from "./fake-embeddings";

export interface FakeUsage {
  inputTokens: number;
  outputTokens: number;
}

interface Common {
  /** Wait this long before answering; the answer is dropped if the client gave up first. */
  delayMs?: number;
  usage?: FakeUsage;
}

export type FakeLlmResponse =
  /** A well-formed answer: the tool input (Anthropic) or the message content (OpenAI). */
  | (Common & { json: unknown })
  /** Anthropic: a text block and no tool_use. OpenAI: this string as the content. */
  | (Common & { raw: string })
  /** Cut off at the token limit: stop_reason "max_tokens" / finish_reason "length". */
  | (Common & { truncated: true; json?: unknown })
  /** An HTTP error in the provider's error shape; retryAfter is seconds or an HTTP date. */
  | (Common & { status: number; retryAfter?: string; retryAfterMs?: string; message?: string; echoCredentials?: boolean })
  /** The model calls these tools (an agent's tools, e.g. the AI SDK's): OpenAI tool_calls, Anthropic tool_use blocks. */
  | (Common & { toolCalls: { name: string; arguments: unknown }[] })
  /** Only a delay: answers `{}` after it. */
  | { delayMs: number; usage?: FakeUsage };

export type FakeRoute = "anthropic" | "openai" | "embeddings";

export interface FakeRecordedRequest {
  route: FakeRoute;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** Answers a chat request the script did not cover; undefined falls through to the 418. */
export type FakeResponder = (request: FakeRecordedRequest) => FakeLlmResponse | undefined;

export interface FakeLlmServer {
  url: string;
  /** Pass as the Anthropic SDK baseURL; the SDK appends /v1/messages. */
  anthropicBaseUrl: string;
  /** Pass as the OpenAI SDK baseURL; the SDK appends /chat/completions (or /embeddings). */
  openaiBaseUrl: string;
  script(...responses: FakeLlmResponse[]): void;
  /** What answers once the script is used up (undefined: the 418). */
  respondWith(responder: FakeResponder | undefined): void;
  /** POST /v1/embeddings: pinned vectors and one-shot scripted answers. */
  embeddings: FakeEmbeddings;
  /** Every request received, in order, including ones answered with an error. */
  requests: FakeRecordedRequest[];
  close(): Promise<void>;
}

interface Reply {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

const DEFAULT_USAGE: FakeUsage = { inputTokens: 10, outputTokens: 5 };
const ROUTES: Record<string, FakeRoute> = {
  "/v1/messages": "anthropic",
  "/v1/chat/completions": "openai",
  "/v1/embeddings": "embeddings",
};

export async function startFakeLlmServer(): Promise<FakeLlmServer> {
  const queue: FakeLlmResponse[] = [];
  const requests: FakeRecordedRequest[] = [];
  const embeddings = embeddingsState();
  const state: ServerState = { queue, requests, embeddings, responder: undefined };
  const server = http.createServer((req, res) => {
    void handle(req, res, state);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    anthropicBaseUrl: url,
    openaiBaseUrl: `${url}/v1`,
    script: (...responses) => void queue.push(...responses),
    respondWith: (responder) => void (state.responder = responder),
    embeddings: { pin: embeddings.pin, script: embeddings.script },
    requests,
    close: () => closeServer(server),
  };
}

interface ServerState {
  queue: FakeLlmResponse[];
  requests: FakeRecordedRequest[];
  embeddings: EmbeddingsState;
  responder: FakeResponder | undefined;
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse, state: ServerState): Promise<void> {
  const { queue, requests, embeddings } = state;
  const path = (req.url ?? "").split("?")[0] ?? "";
  const route = ROUTES[path];
  const body = await readJsonBody(req);
  if (req.method !== "POST" || route === undefined) {
    return send(res, { status: 404, headers: {}, body: { error: { message: `no route ${req.method} ${path}` } } });
  }
  const recorded: FakeRecordedRequest = { route, path, headers: req.headers, body: body ?? {} };
  requests.push(recorded);
  if (route === "embeddings") return handleEmbeddings(res, embeddings, body);
  const missing = missingFields(route, body);
  // A request the real API would reject is answered like it would be, without using up the script.
  if (body === undefined || missing.length > 0) {
    return send(res, errorReply(route, { status: 400, message: `missing or invalid: ${missing.join(", ")}` }));
  }
  const scripted = withEchoedCredentials(queue.shift() ?? state.responder?.(recorded), req.headers);
  const reply = scripted === undefined ? emptyQueueReply(route) : replyFor(route, scripted, body);
  if (scripted?.delayMs) await delayUnlessClosed(res, scripted.delayMs);
  send(res, reply);
}

async function handleEmbeddings(
  res: http.ServerResponse,
  state: EmbeddingsState,
  body: Record<string, unknown> | undefined,
): Promise<void> {
  const inputs = body && embeddingInputs(body);
  if (!body || typeof body["model"] !== "string" || !inputs) {
    return send(res, errorReply("embeddings", { status: 400, message: "missing or invalid: model, input (non-empty strings)" }));
  }
  const scripted = state.next();
  if (scripted && "delayMs" in scripted && scripted.delayMs) await delayUnlessClosed(res, scripted.delayMs);
  if (scripted && "status" in scripted) return send(res, errorReply("embeddings", scripted));
  const promptTokens = scripted && "promptTokens" in scripted ? scripted.promptTokens : undefined;
  send(res, { status: 200, headers: {}, body: embeddingReply(state, body, inputs, promptTokens) });
}

/** A careless provider or proxy quoting the credential it was sent, as some do in their auth errors. */
function withEchoedCredentials(scripted: FakeLlmResponse | undefined, headers: http.IncomingHttpHeaders): FakeLlmResponse | undefined {
  if (!scripted || !("echoCredentials" in scripted) || !scripted.echoCredentials) return scripted;
  const sent = headers["x-api-key"] ?? headers.authorization ?? "none";
  return { ...scripted, message: `${scripted.message ?? `scripted ${scripted.status}`}; credential received: ${String(sent)}` };
}

function replyFor(route: FakeRoute, scripted: FakeLlmResponse, request: Record<string, unknown>): Reply {
  if ("status" in scripted) return errorReply(route, scripted);
  const usage = withinOutputCap(scripted.usage ?? DEFAULT_USAGE, request);
  const model = typeof request["model"] === "string" ? request["model"] : "fake-model";
  if (route === "anthropic") return { status: 200, headers: {}, body: anthropicMessage(scripted, request, model, usage) };
  return { status: 200, headers: {}, body: openAiCompletion(scripted, model, usage) };
}

/** A provider never writes more than the request's output cap, and never bills more. */
function withinOutputCap(usage: FakeUsage, request: Record<string, unknown>): FakeUsage {
  const cap = request["max_tokens"] ?? request["max_completion_tokens"];
  return typeof cap === "number" ? { ...usage, outputTokens: Math.min(usage.outputTokens, cap) } : usage;
}

function anthropicMessage(scripted: FakeLlmResponse, request: Record<string, unknown>, model: string, usage: FakeUsage) {
  const toolName = requestedToolName(request);
  const truncated = "truncated" in scripted;
  const content =
    "raw" in scripted
      ? [{ type: "text", text: scripted.raw }]
      : "toolCalls" in scripted
        ? scripted.toolCalls.map((call) => ({ type: "tool_use", id: nextId("toolu"), name: call.name, input: call.arguments }))
        : [{ type: "tool_use", id: nextId("toolu"), name: toolName, input: toolInput(scripted) }];
  return {
    id: nextId("msg"),
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: truncated ? "max_tokens" : "raw" in scripted ? "end_turn" : "tool_use",
    stop_sequence: null,
    usage: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens },
  };
}

/** The tool input; a truncated answer keeps only the first half of the keys, as a cut-off call would. */
function toolInput(scripted: FakeLlmResponse): unknown {
  const value = "json" in scripted ? scripted.json : {};
  if (!("truncated" in scripted) || value === null || typeof value !== "object") return value;
  const entries = Object.entries(value);
  return Object.fromEntries(entries.slice(0, Math.floor(entries.length / 2)));
}

function openAiCompletion(scripted: FakeLlmResponse, model: string, usage: FakeUsage) {
  const json = JSON.stringify("json" in scripted ? scripted.json : {});
  const truncated = "truncated" in scripted;
  const content = "raw" in scripted ? scripted.raw : truncated ? json.slice(0, Math.ceil(json.length / 2)) : json;
  const calls =
    "toolCalls" in scripted
      ? scripted.toolCalls.map((call) => ({
          id: nextId("call"),
          type: "function",
          function: { name: call.name, arguments: JSON.stringify(call.arguments) },
        }))
      : undefined;
  return {
    id: nextId("chatcmpl"),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: calls
          ? { role: "assistant", content: null, tool_calls: calls, refusal: null }
          : { role: "assistant", content, refusal: null },
        finish_reason: truncated ? "length" : calls ? "tool_calls" : "stop",
        logprobs: null,
      },
    ],
    usage: {
      prompt_tokens: usage.inputTokens,
      completion_tokens: usage.outputTokens,
      total_tokens: usage.inputTokens + usage.outputTokens,
    },
  };
}

function errorReply(route: FakeRoute, scripted: { status: number; retryAfter?: string; retryAfterMs?: string; message?: string }): Reply {
  const headers: Record<string, string> = {};
  if (scripted.retryAfter !== undefined) headers["retry-after"] = scripted.retryAfter;
  if (scripted.retryAfterMs !== undefined) headers["retry-after-ms"] = scripted.retryAfterMs;
  const message = scripted.message ?? `scripted ${scripted.status}`;
  const type = errorType(scripted.status);
  const body = route === "anthropic" ? { type: "error", error: { type, message } } : { error: { message, type, param: null, code: null } };
  return { status: scripted.status, headers, body };
}

function errorType(status: number): string {
  if (status === 429) return "rate_limit_error";
  if (status === 401) return "authentication_error";
  if (status === 529) return "overloaded_error";
  return status >= 500 ? "api_error" : "invalid_request_error";
}

function emptyQueueReply(route: FakeRoute): Reply {
  return errorReply(route, { status: 418, message: "fake-llm-server: no scripted response left" });
}

const REQUIRED_FIELDS: Record<Exclude<FakeRoute, "embeddings">, Array<[string, string]>> = {
  anthropic: [
    ["model", "string"],
    ["max_tokens", "number"],
    ["messages", "object"],
  ],
  openai: [
    ["model", "string"],
    ["messages", "object"],
  ],
};

function missingFields(route: Exclude<FakeRoute, "embeddings">, body: Record<string, unknown> | undefined): string[] {
  if (body === undefined) return ["JSON body"];
  return REQUIRED_FIELDS[route].filter(([field, type]) => typeof body[field] !== type).map(([field]) => field);
}

function requestedToolName(request: Record<string, unknown>): string {
  const choice = request["tool_choice"] as { name?: unknown } | undefined;
  return typeof choice?.name === "string" ? choice.name : "output";
}

let idCounter = 0;
function nextId(prefix: string): string {
  idCounter += 1;
  return `${prefix}_fake${idCounter}`;
}

async function readJsonBody(req: http.IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    return parsed !== null && typeof parsed === "object" ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function delayUnlessClosed(res: http.ServerResponse, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    res.once("close", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function send(res: http.ServerResponse, reply: Reply): void {
  if (res.destroyed || res.writableEnded) return;
  res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
  res.end(JSON.stringify(reply.body));
}

function closeServer(server: http.Server): Promise<void> {
  // Keep-alive sockets from the SDKs' fetch would otherwise hold close() open.
  server.closeAllConnections();
  return new Promise((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
}

/** The text of a chat request's messages (system prompt excluded), whichever provider it was sent to. */
export function promptText(request: FakeRecordedRequest): string {
  const messages = Array.isArray(request.body["messages"]) ? (request.body["messages"] as { role?: string; content?: unknown }[]) : [];
  return messages
    .filter((m) => m.role !== "system")
    .map((m) => contentText(m.content))
    .join("\n");
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((block: { text?: unknown }) => (typeof block.text === "string" ? block.text : "")).join("\n");
}
