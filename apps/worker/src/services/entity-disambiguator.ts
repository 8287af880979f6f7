// The commit stage's disambiguator: the strong model, when one is configured. Without
// one (or with one misconfigured) commits still run and contested names become new
// entities, the rule in packages/memory/src/entities/entity-matching.ts.
import { providerOptions, type Config } from "@recall/config";
import type { ContextConfig } from "@recall/contracts";
import { Budget, NoProviderError, createModelClient, structuredCall, type ModelClient } from "@recall/llm";
import { DisambiguationAnswer, decisionFrom, disambiguationPrompt, type EntityDisambiguator } from "@recall/memory";
import type { Logger } from "@recall/telemetry";
import { budgetLimits } from "./plan";

const MAX_OUTPUT_TOKENS = 512;

/** The strong model's client, or undefined when none is configured or its credentials are missing. */
export function strongModel(config: Config, logger: Logger): ModelClient | undefined {
  try {
    return createModelClient(providerOptions(config), "strong");
  } catch (err) {
    if (!(err instanceof NoProviderError)) throw err;
    logger.warn({ err: err.message }, "no strong model for entity disambiguation; contested names become new entities");
    return undefined;
  }
}

/** One disambiguator per commit job: its questions share the job's budget. */
export function modelDisambiguator(client: ModelClient, budget: Budget): EntityDisambiguator {
  return {
    async decide(request) {
      const prompt = disambiguationPrompt(request);
      const result = await structuredCall(
        client,
        { ...prompt, schema: DisambiguationAnswer, schemaName: "entity_choice", maxTokens: MAX_OUTPUT_TOKENS },
        { budget, stage: "disambiguation" },
      );
      const tokensUsed = result.totalUsage.inputTokens + result.totalUsage.outputTokens;
      return { ...decisionFrom(result.value, request), tokensUsed };
    },
  };
}

/** The commit's budget for model calls: the lower of the service's limits and the context's own. */
export function commitBudget(config: Config, contextConfig: ContextConfig): Budget {
  return new Budget(budgetLimits(config, contextConfig));
}
