// Test-only: model clients built through the real factory, pointed at the fake provider server.
import { configWith, providerOptions, type Config } from "@recall/config";
import type { FakeLlmServer } from "@recall/test-support";
import { z } from "zod";
import { createModelClient } from "../create-model-client";
import type { ModelClient } from "../model-client";

export type TestProvider = "anthropic" | "openai" | "openai-compatible";

export const TEST_MODELS: Record<TestProvider, string> = {
  anthropic: "anthropic:claude-test",
  openai: "openai:gpt-test",
  "openai-compatible": "openai-compatible:llama3:8b",
};

export function fakeConfig(server: FakeLlmServer, provider: TestProvider, extra: Partial<Record<keyof Config, string>> = {}): Config {
  return configWith({
    RECALL_FAST_MODEL: TEST_MODELS[provider],
    ANTHROPIC_API_KEY: "test-anthropic-key",
    ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
    OPENAI_API_KEY: provider === "openai-compatible" ? undefined : "test-openai-key",
    OPENAI_BASE_URL: server.openaiBaseUrl,
    LLM_TIMEOUT_MS: "5000",
    ...extra,
  } as Partial<Record<keyof Config, string>>);
}

export function fakeClient(server: FakeLlmServer, provider: TestProvider, extra: Partial<Record<keyof Config, string>> = {}): ModelClient {
  const client = createModelClient(providerOptions(fakeConfig(server, provider, extra)), "fast");
  if (client === undefined) throw new Error("fast model not configured");
  return client;
}

export const FactsSchema = z.object({
  facts: z.array(z.object({ subject: z.string(), statement: z.string().min(1) })),
  confidence: z.number().min(0).max(1),
});

export const GOOD_FACTS = { facts: [{ subject: "alice", statement: "is CTO at Acme" }], confidence: 0.9 };

export function factsRequest(overrides: { maxTokens?: number; signal?: AbortSignal } = {}) {
  return {
    system: "Extract facts.",
    user: "I'm Alice, CTO at Acme.",
    schema: FactsSchema,
    schemaName: "record_facts",
    maxTokens: overrides.maxTokens ?? 1_024,
    signal: overrides.signal,
  };
}
