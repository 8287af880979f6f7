export { parseModelRef, PROVIDERS, type ModelRef, type Provider } from "./model-ref";
export { createModelClient, requireModelClient, type ModelTier } from "./create-model-client";
export type { Completion, CompletionRequest, ModelClient, RepairTurn, Usage } from "./model-client";
export { AnthropicModelClient, type AnthropicClientOptions } from "./anthropic.client";
export { OpenAiModelClient, type OpenAiClientOptions } from "./openai.client";
export type { EmbeddingClient, EmbeddingResult } from "./embedding-client";
export { OpenAiEmbeddingClient, type OpenAiEmbeddingClientOptions } from "./openai-embedding.client";
export { createEmbeddingClient, type EmbeddingClientOptions } from "./create-embedding-client";
export { structuredCall, type StructuredCallOptions, type StructuredResult } from "./structured-call";
export { Budget, type BudgetOptions, type TokensUsed } from "./budget";
export {
  BudgetExceededError,
  MalformedOutputError,
  NoProviderError,
  OutputValidationError,
  ProviderError,
  type BudgetLimit,
  type MalformedReason,
  type ProviderErrorKind,
} from "./llm-errors";
export { classifyProviderError } from "./classify-provider-error";
export { jsonSchemaFor, strictJsonSchemaFor } from "./output-schema";
export * from "./request-gate";
export { OPTION_VARIABLES, type ProviderOptions } from "./provider-options";
export { InvalidModelRefError } from "./model-ref";
