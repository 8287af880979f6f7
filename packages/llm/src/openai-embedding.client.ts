import type OpenAI from "openai";
import { withProviderErrors } from "./classify-provider-error";
import type { EmbeddingClient, EmbeddingResult } from "./embedding-client";
import { ProviderError } from "./llm-errors";
import { NO_USAGE } from "./model-client";
import { openAiSdk, type OpenAiClientOptions } from "./openai.client";

export interface OpenAiEmbeddingClientOptions extends OpenAiClientOptions {
  /** Asked of the model (text-embedding-3 and later); every vector returned must have this length. */
  dimensions?: number;
}

/** Embeddings through the OpenAI embeddings API, which OpenAI-compatible servers (vLLM, Ollama, llama.cpp) also serve. */
export class OpenAiEmbeddingClient implements EmbeddingClient {
  readonly modelRef: string;
  readonly #model: string;
  readonly #dimensions: number | undefined;
  readonly #timeoutMs: number;
  readonly #sdk: OpenAI;

  constructor(options: OpenAiEmbeddingClientOptions) {
    this.modelRef = `${options.provider}:${options.model}`;
    this.#model = options.model;
    this.#dimensions = options.dimensions;
    this.#timeoutMs = options.timeoutMs;
    this.#sdk = openAiSdk(options);
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<EmbeddingResult> {
    // The API rejects an empty input list; nothing to embed costs nothing.
    if (texts.length === 0) return { vectors: [], usage: NO_USAGE, model: this.#model };
    const response = await withProviderErrors(
      signal,
      this.#timeoutMs,
      (callSignal) => this.#sdk.embeddings.create(this.#params(texts), { signal: callSignal }),
      this.#sdk.apiKey ?? undefined,
    );
    return {
      vectors: vectorsOf(response, texts.length, this.#dimensions),
      // Embeddings have no output; some compatible servers omit usage, which counts as zero.
      usage: { inputTokens: response.usage?.prompt_tokens ?? 0, outputTokens: 0 },
      model: response.model,
    };
  }

  #params(texts: readonly string[]): OpenAI.EmbeddingCreateParams {
    return {
      model: this.#model,
      input: [...texts],
      // The SDK would ask for base64 and decode it; several compatible servers only speak float.
      encoding_format: "float",
      ...(this.#dimensions === undefined ? {} : { dimensions: this.#dimensions }),
    };
  }
}

/**
 * The vectors in input order (`index`, not position, says which input each belongs to).
 * A reply that cannot be stored is the provider's fault: retryable when the shape is wrong,
 * not when a model ignores the requested length, which no retry will change.
 */
function vectorsOf(response: OpenAI.CreateEmbeddingResponse, count: number, dimensions: number | undefined): number[][] {
  const byIndex = new Map(response.data.map((d) => [d.index, d.embedding]));
  const vectors = Array.from({ length: count }, (_, i) => byIndex.get(i));
  const length = vectors[0]?.length ?? 0;
  if (vectors.some((v) => !Array.isArray(v) || v.length !== length || length === 0 || !v.every(Number.isFinite))) {
    throw new ProviderError("server", `embedding reply does not hold ${count} vectors of equal length, one per input`);
  }
  if (dimensions !== undefined && length !== dimensions) {
    throw new ProviderError(
      "bad_request",
      `asked for ${dimensions} dimensions, got ${length}: the model ignores RECALL_EMBEDDING_DIMENSIONS; unset it or set it to ${length}`,
    );
  }
  return vectors as number[][];
}
