import { AnthropicModelClient } from "./anthropic.client";
import { NoProviderError } from "./llm-errors";
import type { ModelClient } from "./model-client";
import { parseModelRef, type Provider } from "./model-ref";
import { OpenAiModelClient } from "./openai.client";
import { gatedClient } from "./request-gate";
import { OPTION_VARIABLES, type ProviderOptions } from "./provider-options";

export type ModelTier = "fast" | "strong";

// Passed explicitly so the SDKs never fall back to reading process.env themselves.
const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";
const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";

// Local OpenAI-compatible servers ignore the key, but the SDK refuses to send a request without one.
const PLACEHOLDER_API_KEY = "openai-compatible-no-key";

/**
 * The client for a tier, or undefined when the tier's model variable is unset (callers
 * then fall back, e.g. to heuristics). Throws NoProviderError when the model names a
 * provider whose credentials are missing.
 */
/** Every client passes the process's request gate (provider RPM limit, see request-gate.ts). */
export function createModelClient(options: ProviderOptions, tier: ModelTier): ModelClient | undefined {
  const ref = options.models[tier];
  if (ref === undefined) return undefined;
  const { provider, model } = parseModelRef(ref);
  const timeoutMs = options.timeoutMs;
  if (provider === "anthropic") {
    const apiKey = options.anthropicApiKey ?? missing(tier, provider, ref, OPTION_VARIABLES.anthropicApiKey);
    const baseURL = options.anthropicBaseUrl ?? ANTHROPIC_DEFAULT_BASE_URL;
    return gatedClient(new AnthropicModelClient({ model, apiKey, baseURL, timeoutMs }));
  }
  const connection = openAiConnection(options, provider, (variable) => missing(tier, provider, ref, variable));
  return gatedClient(new OpenAiModelClient({ provider, model, ...connection, timeoutMs }));
}

/**
 * Key and base URL for the OpenAI SDK, shared by chat and embedding clients: OpenAI needs
 * a key, a compatible server needs a base URL. `onMissing` names the absent variable.
 */
export function openAiConnection(
  options: ProviderOptions,
  provider: "openai" | "openai-compatible",
  onMissing: (variable: string) => never,
): { apiKey: string; baseURL: string } {
  const { openaiApiKey, openaiBaseUrl } = options;
  if (provider === "openai") {
    return { apiKey: openaiApiKey ?? onMissing(OPTION_VARIABLES.openaiApiKey), baseURL: openaiBaseUrl ?? OPENAI_DEFAULT_BASE_URL };
  }
  return { baseURL: openaiBaseUrl ?? onMissing(OPTION_VARIABLES.openaiBaseUrl), apiKey: openaiApiKey ?? PLACEHOLDER_API_KEY };
}

/** Like createModelClient, but an unset tier is an error naming what to set. */
export function requireModelClient(options: ProviderOptions, tier: ModelTier): ModelClient {
  const client = createModelClient(options, tier);
  if (client === undefined) {
    const variable = OPTION_VARIABLES[tier];
    throw new NoProviderError(tier, [variable], `no ${tier} model configured: ${howToConfigure(variable)}`);
  }
  return client;
}

function missing(tier: ModelTier, provider: Provider, ref: string, variable: string): never {
  const tierVariable = OPTION_VARIABLES[tier];
  throw new NoProviderError(
    tier,
    [variable],
    `${tierVariable}=${ref} uses ${provider} but ${variable} is not set: set ${variable}, or ${howToConfigure(tierVariable)}`,
  );
}

function howToConfigure(variable: string): string {
  return (
    `set ${variable}=anthropic:<model> and ANTHROPIC_API_KEY, ` +
    `or ${variable}=openai:<model> and OPENAI_API_KEY, ` +
    `or ${variable}=openai-compatible:<model> and OPENAI_BASE_URL (OPENAI_API_KEY optional)`
  );
}
