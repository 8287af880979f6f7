// What other packages use of @recall/llm, and only that: everything else in it is internal.
export { Budget } from "./budget";
export { createEmbeddingClient } from "./create-embedding-client";
export { type ModelTier, createModelClient } from "./create-model-client";
export { type EmbeddingClient } from "./embedding-client";
export { BudgetExceededError, NoProviderError, OutputValidationError } from "./llm-errors";
export { type ModelClient } from "./model-client";
export { type ProviderOptions } from "./provider-options";
export { CallLimit, limitedClient } from "./call-limit";
export { installRequestGate } from "./request-gate";
export { structuredCall } from "./structured-call";
