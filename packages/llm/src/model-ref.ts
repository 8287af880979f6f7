import { SetupError } from "@recall/contracts";
/** A model setting that is not `provider:model` with a known provider. */
export class InvalidModelRefError extends SetupError {
  override name = "InvalidModelRefError";
}

export const PROVIDERS = ["anthropic", "openai", "openai-compatible"] as const;
export type Provider = (typeof PROVIDERS)[number];

export interface ModelRef {
  provider: Provider;
  model: string;
}

function isProvider(value: string): value is Provider {
  return (PROVIDERS as readonly string[]).includes(value);
}

/**
 * Splits "provider:model" at the first colon only, because local model names often carry
 * a tag after a colon of their own ("openai-compatible:llama3:8b").
 */
export function parseModelRef(ref: string): ModelRef {
  const colon = ref.indexOf(":");
  const provider = colon < 0 ? "" : ref.slice(0, colon).trim();
  const model = colon < 0 ? "" : ref.slice(colon + 1).trim();
  if (!isProvider(provider) || model === "") {
    throw new InvalidModelRefError(
      `invalid model reference "${ref}": expected provider:model with provider one of ${PROVIDERS.join(", ")}`,
    );
  }
  return { provider, model };
}
