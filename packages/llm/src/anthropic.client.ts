import type Anthropic from "@anthropic-ai/sdk";
import { withProviderErrors } from "./classify-provider-error";
import { anthropicSdk } from "./provider-sdks";
import { MalformedOutputError } from "./llm-errors";
import type { Completion, CompletionRequest, ModelClient, Usage } from "./model-client";
import { assertSchemaName, jsonSchemaFor } from "./output-schema";
import { previousOutputText, repairInstruction } from "./repair-prompt";
import { validateOutput } from "./validate-output";

export interface AnthropicClientOptions {
  model: string;
  apiKey: string;
  baseURL: string;
  timeoutMs: number;
}

// Stop reasons meaning the tool input was cut off before it was complete.
const TRUNCATED = new Set(["max_tokens", "model_context_window_exceeded"]);

/** Structured output through one forced tool call: the tool's input is the answer. */
export class AnthropicModelClient implements ModelClient {
  readonly provider = "anthropic" as const;
  readonly model: string;
  readonly #timeoutMs: number;
  readonly #sdk: Anthropic;

  constructor(options: AnthropicClientOptions) {
    this.model = options.model;
    this.#timeoutMs = options.timeoutMs;
    // Loaded with the first client (provider-sdks.ts); maxRetries 0: the queue owns retries and needs to see every failure.
    const { Anthropic: Sdk } = anthropicSdk();
    this.#sdk = new Sdk({
      apiKey: options.apiKey,
      baseURL: options.baseURL,
      timeout: options.timeoutMs,
      maxRetries: 0,
    });
  }

  async complete<T>(request: CompletionRequest<T>): Promise<Completion<T>> {
    const params = this.#params(request);
    const message = await withProviderErrors(
      request.signal,
      this.#timeoutMs,
      (signal) => this.#sdk.messages.create(params, { signal }),
      this.#sdk.apiKey ?? undefined,
    );
    return readToolOutput(message, request);
  }

  #params<T>(request: CompletionRequest<T>): Anthropic.MessageCreateParamsNonStreaming {
    assertSchemaName(request.schemaName);
    const inputSchema = jsonSchemaFor(request.schema) as Anthropic.Tool.InputSchema;
    return {
      model: this.model,
      max_tokens: request.maxTokens,
      system: request.system,
      messages: anthropicMessages(request),
      tools: [{ name: request.schemaName, input_schema: inputSchema }],
      tool_choice: { type: "tool", name: request.schemaName },
    };
  }
}

function anthropicMessages<T>(request: CompletionRequest<T>): Anthropic.MessageParam[] {
  const messages: Anthropic.MessageParam[] = [{ role: "user", content: request.user }];
  if (request.repair) {
    messages.push(
      { role: "assistant", content: previousOutputText(request.repair) },
      { role: "user", content: repairInstruction(request.repair, request.schemaName) },
    );
  }
  return messages;
}

function readToolOutput<T>(message: Anthropic.Message, request: CompletionRequest<T>): Completion<T> {
  const usage = anthropicUsage(message.usage);
  const toolUse = message.content.find(
    (block): block is Anthropic.ToolUseBlock => block.type === "tool_use" && block.name === request.schemaName,
  );
  const rawText = toolUse ? JSON.stringify(toolUse.input) : textOf(message);
  const stop = message.stop_reason ?? "null";
  if (TRUNCATED.has(stop)) {
    throw new MalformedOutputError("truncated", `model output was cut off (stop_reason ${stop})`, rawText, usage);
  }
  if (stop === "refusal") throw new MalformedOutputError("refusal", "model refused to answer", rawText, usage);
  if (!toolUse) {
    throw new MalformedOutputError("missing_tool_call", `model did not call ${request.schemaName}`, rawText, usage);
  }
  const value = validateOutput(request.schema, toolUse.input, rawText, usage);
  return { value, usage, model: message.model, raw: message };
}

function textOf(message: Anthropic.Message): string {
  return message.content
    .filter((block): block is Anthropic.TextBlock => block.type === "text")
    .map((block) => block.text)
    .join("\n");
}

/** Cache writes and reads are billed input too, so they count against the budget. */
function anthropicUsage(usage: Anthropic.Usage): Usage {
  const cached = (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
  return { inputTokens: usage.input_tokens + cached, outputTokens: usage.output_tokens };
}
