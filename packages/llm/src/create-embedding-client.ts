import { openAiConnection } from "./create-model-client";
import type { EmbeddingClient } from "./embedding-client";
import { NoProviderError } from "./llm-errors";
import { parseModelRef } from "./model-ref";
import { OpenAiEmbeddingClient } from "./openai-embedding.client";
import type { ProviderOptions } from "./provider-options";

export interface EmbeddingClientOptions {
  /** Overrides the providers' timeout, e.g. for a search that would rather answer from full text than wait. */
  timeoutMs?: number;
}

/**
 * The embedding client for RECALL_EMBEDDING_MODEL, or undefined when it is unset (vector
 * search is then off). Throws NoProviderError when the provider's credentials are missing.
 */
export function createEmbeddingClient(providers: ProviderOptions, options: EmbeddingClientOptions = {}): EmbeddingClient | undefined {
  const ref = providers.models.embedding;
  if (ref === undefined) return undefined;
  const { provider, model } = parseModelRef(ref);
  // The config schema admits only OpenAI-style providers here; Anthropic serves no embeddings.
  if (provider === "anthropic")
    throw new NoProviderError("embedding", [], `RECALL_EMBEDDING_MODEL=${ref}: anthropic has no embeddings API`);
  const connection = openAiConnection(providers, provider, (variable) => {
    throw new NoProviderError(
      "embedding",
      [variable],
      `RECALL_EMBEDDING_MODEL=${ref} uses ${provider} but ${variable} is not set: set ${variable}, or unset RECALL_EMBEDDING_MODEL to search by full text only`,
    );
  });
  return new OpenAiEmbeddingClient({
    provider,
    model,
    ...connection,
    timeoutMs: options.timeoutMs ?? providers.timeoutMs,
    dimensions: providers.embeddingDimensions,
  });
}
