// What the model and embedding clients are built from: plain options, filled in by the
// apps from their environment (packages/config providerOptions) or by a test or tool directly.

export interface ProviderOptions {
  /** `provider:model` per use; an unset model turns that use off. */
  models: { fast?: string; strong?: string; embedding?: string };
  /** Asks the embedding model for vectors this long (text-embedding-3 and later). */
  embeddingDimensions?: number;
  anthropicApiKey?: string;
  anthropicBaseUrl?: string;
  openaiApiKey?: string;
  openaiBaseUrl?: string;
  timeoutMs: number;
}

/** The environment variable that sets each option, so errors tell an operator what to change. */
export const OPTION_VARIABLES = {
  fast: "RECALL_FAST_MODEL",
  strong: "RECALL_STRONG_MODEL",
  embedding: "RECALL_EMBEDDING_MODEL",
  anthropicApiKey: "ANTHROPIC_API_KEY",
  openaiApiKey: "OPENAI_API_KEY",
  openaiBaseUrl: "OPENAI_BASE_URL",
} as const;
