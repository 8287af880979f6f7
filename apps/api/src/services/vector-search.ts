// The vector retriever of POST /query, from RECALL_EMBEDDING_MODEL.
import { providerOptions, type Config } from "@recall/config";
import { NoProviderError, createEmbeddingClient } from "@recall/llm";
import { embeddingRetriever, unavailableRetriever, type VectorRetriever } from "@recall/memory";

/** A search answers from full text rather than wait the whole LLM_TIMEOUT_MS on a slow provider. */
const QUERY_EMBEDDING_TIMEOUT_MS = 5_000;

/**
 * undefined when no model is configured. A model whose credentials are missing still gives
 * a retriever: every answer then says what to set, where a startup failure would take
 * full-text search down with it.
 */
export function vectorRetriever(config: Config): VectorRetriever | undefined {
  try {
    const client = createEmbeddingClient(providerOptions(config), {
      timeoutMs: Math.min(config.LLM_TIMEOUT_MS, QUERY_EMBEDDING_TIMEOUT_MS),
    });
    return client && embeddingRetriever(client, { dimensions: config.RECALL_EMBEDDING_DIMENSIONS });
  } catch (err) {
    if (!(err instanceof NoProviderError) || config.RECALL_EMBEDDING_MODEL === undefined) throw err;
    return unavailableRetriever(config.RECALL_EMBEDDING_MODEL, err.message);
  }
}
