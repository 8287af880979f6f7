// @recall/client: a typed client for the Recall memory API.
export { RecallClient, type RecallOptions } from "./recall-client.js";
export { ENV_NAMES } from "./env-defaults.js";
export { RecallClientError, RecallConnectionError, RecallError, RecallTimeoutError, type FieldError, type Problem } from "./errors.js";
export { RecallPipelineError, type WaitOptions } from "./document-wait.js";
export { DEFAULT_RETRY, type RetryPolicy } from "./retry-policy.js";
export type { CallOptions } from "./transport.js";
export type * from "./types.js";
export type { paths, components, operations } from "./generated/openapi.js";
