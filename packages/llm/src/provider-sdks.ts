// The providers' SDKs, required on first use instead of with this package: together about a second of CPU to load
// under Jest (a third of that in node), which every process and test file that imports @recall/llm paid, though most
// never call a model (the API, a worker with no model configured, most test files).
export const anthropicSdk = () => require("@anthropic-ai/sdk") as typeof import("@anthropic-ai/sdk");
export const openAiSdkModule = () => require("openai") as typeof import("openai");
/** Loads most of the OpenAI SDK too: wanted only for a strict schema (output-schema.ts). */
export const openAiZodHelpers = () => require("openai/helpers/zod") as typeof import("openai/helpers/zod");
