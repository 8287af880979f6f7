// The extract-again service as the API, MCP and the dashboard build it: the windows' model (the fast tier, when one
// can be built with its key), the price table and the window limits from this process's configuration.
import { providerOptions, type Config } from "@recall/config";
import { NoProviderError, createModelClient } from "@recall/llm";
import { ExtractAgainService, type QueueSet } from "@recall/pipeline";
import type { Db } from "@recall/db";
import type { Logger } from "@recall/telemetry";

/** Inputs one extract-again call queues at most (docs/limits.md); a later call takes the rest. */
export const EXTRACT_AGAIN_MAX_INPUTS = 1_000;

export function extractAgainService(deps: { config: Config; db: Db; queues: QueueSet; logger: Logger }): ExtractAgainService {
  const { config } = deps;
  return new ExtractAgainService(deps, {
    model: usableFastModel(config),
    prices: config.RECALL_MODEL_PRICES_JSON,
    window: { maxTurns: config.RECALL_WINDOW_MAX_TURNS, maxChars: config.RECALL_WINDOW_MAX_CHARS },
    maxInputs: EXTRACT_AGAIN_MAX_INPUTS,
  });
}

/** `provider:model` of the fast tier when it can be built (its key is set); undefined otherwise. */
function usableFastModel(config: Config): string | undefined {
  try {
    createModelClient(providerOptions(config), "fast");
    return config.RECALL_FAST_MODEL;
  } catch (err) {
    if (err instanceof NoProviderError) return undefined;
    throw err;
  }
}
