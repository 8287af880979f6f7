import type OpenAI from "openai";
import { withProviderErrors } from "./classify-provider-error";
import { openAiSdkModule } from "./provider-sdks";
import { MalformedOutputError } from "./llm-errors";
import type { Completion, CompletionRequest, ModelClient, Usage } from "./model-client";
import { assertSchemaName, strictJsonSchemaFor } from "./output-schema";
import { previousOutputText, repairInstruction } from "./repair-prompt";
import { parseJsonOutput, validateOutput } from "./validate-output";

export interface OpenAiClientOptions {
  provider: "openai" | "openai-compatible";
  model: string;
  apiKey: string;
  baseURL: string;
  timeoutMs: number;
}

/**
 * The SDK as every OpenAI client here uses it. maxRetries 0: the queue owns retries.
 * organization/project null: config, not the process environment, decides what is sent.
 */
export function openAiSdk(options: OpenAiClientOptions): OpenAI {
  const { OpenAI: Sdk } = openAiSdkModule();
  return new Sdk({
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    timeout: options.timeoutMs,
    maxRetries: 0,
    organization: null,
    project: null,
  });
}

/** Structured output through Chat Completions `response_format: json_schema` in strict mode. */
export class OpenAiModelClient implements ModelClient {
  readonly provider: "openai" | "openai-compatible";
  readonly model: string;
  readonly #timeoutMs: number;
  readonly #sdk: OpenAI;

  constructor(options: OpenAiClientOptions) {
    this.provider = options.provider;
    this.model = options.model;
    this.#timeoutMs = options.timeoutMs;
    this.#sdk = openAiSdk(options);
  }

  async complete<T>(request: CompletionRequest<T>): Promise<Completion<T>> {
    const params = this.#params(request);
    const completion = await withProviderErrors(
      request.signal,
      this.#timeoutMs,
      (signal) => this.#sdk.chat.completions.create(params, { signal }),
      this.#sdk.apiKey ?? undefined,
    );
    return readJsonOutput(completion, request);
  }

  #params<T>(request: CompletionRequest<T>): OpenAI.ChatCompletionCreateParamsNonStreaming {
    assertSchemaName(request.schemaName);
    const schema = strictJsonSchemaFor(request.schema, request.schemaName);
    return {
      model: this.model,
      messages: openAiMessages(request),
      response_format: { type: "json_schema", json_schema: { name: request.schemaName, schema, strict: true } },
      // OpenAI's reasoning models reject max_tokens; many compatible servers only know it.
      ...(this.provider === "openai" ? { max_completion_tokens: request.maxTokens } : { max_tokens: request.maxTokens }),
    };
  }
}

function openAiMessages<T>(request: CompletionRequest<T>): OpenAI.ChatCompletionMessageParam[] {
  const messages: OpenAI.ChatCompletionMessageParam[] = [
    { role: "system", content: request.system },
    { role: "user", content: request.user },
  ];
  if (request.repair) {
    messages.push(
      { role: "assistant", content: previousOutputText(request.repair) },
      { role: "user", content: repairInstruction(request.repair, request.schemaName) },
    );
  }
  return messages;
}

function readJsonOutput<T>(completion: OpenAI.ChatCompletion, request: CompletionRequest<T>): Completion<T> {
  const usage = openAiUsage(completion.usage);
  const choice = completion.choices[0];
  const text = choice?.message.content ?? "";
  if (choice?.finish_reason === "length") {
    throw new MalformedOutputError("truncated", "model output was cut off (finish_reason length)", text, usage);
  }
  const refusal = choice?.message.refusal;
  if (refusal || choice?.finish_reason === "content_filter") {
    throw new MalformedOutputError("refusal", "model refused to answer", refusal ?? text, usage);
  }
  const value = validateOutput(request.schema, parseJsonOutput(text, usage), text, usage);
  return { value, usage, model: completion.model, raw: completion };
}

/**
 * Some compatible servers omit usage; that counts as zero tokens, so only the wall-time
 * budget bounds such a provider.
 */
function openAiUsage(usage: OpenAI.CompletionUsage | undefined): Usage {
  return { inputTokens: usage?.prompt_tokens ?? 0, outputTokens: usage?.completion_tokens ?? 0 };
}
