import { configWith, providerOptions } from "@recall/config";
import { startFakeLlmServer, type FakeLlmServer } from "@recall/test-support";
import { createModelClient, requireModelClient } from "./create-model-client";
import { NoProviderError } from "./llm-errors";
import { factsRequest, GOOD_FACTS } from "./testing/test-clients";

/** Provider options as the apps build them from their environment. */
const optionsWith = (env: Parameters<typeof configWith>[0]) => providerOptions(configWith(env));

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error("expected a throw");
}

describe("createModelClient", () => {
  test("an unset tier gives no client, so callers can fall back", () => {
    const config = optionsWith({ RECALL_STRONG_MODEL: "anthropic:claude-big", ANTHROPIC_API_KEY: "k" });
    expect(createModelClient(config, "fast")).toBeUndefined();
    expect(createModelClient(config, "strong")).toMatchObject({ provider: "anthropic" });
  });

  test("each provider gets its client, with the model from the reference", () => {
    const config = optionsWith({
      RECALL_FAST_MODEL: "openai:gpt-4.1-mini",
      RECALL_STRONG_MODEL: "openai-compatible:llama3:70b",
      OPENAI_API_KEY: "k",
      OPENAI_BASE_URL: "http://127.0.0.1:11434/v1",
    });
    expect(createModelClient(config, "fast")).toMatchObject({ provider: "openai", model: "gpt-4.1-mini" });
    expect(createModelClient(config, "strong")).toMatchObject({ provider: "openai-compatible", model: "llama3:70b" });
    expect(createModelClient(config, "strong")).toMatchObject({ provider: "openai-compatible", model: "llama3:70b" });
  });

  test("anthropic without ANTHROPIC_API_KEY names the variables to set", () => {
    const error = thrown(() => createModelClient(optionsWith({ RECALL_FAST_MODEL: "anthropic:claude-x" }), "fast"));

    expect(error).toBeInstanceOf(NoProviderError);
    expect(error).toMatchObject({ tier: "fast", missing: ["ANTHROPIC_API_KEY"] });
    expect((error as Error).message).toContain("RECALL_FAST_MODEL=anthropic:claude-x uses anthropic but ANTHROPIC_API_KEY is not set");
    expect((error as Error).message).toContain("RECALL_FAST_MODEL=openai:<model> and OPENAI_API_KEY");
  });

  test("openai without OPENAI_API_KEY is refused", () => {
    const error = thrown(() => createModelClient(optionsWith({ RECALL_STRONG_MODEL: "openai:gpt-x" }), "strong"));
    expect(error).toMatchObject({ tier: "strong", missing: ["OPENAI_API_KEY"] });
  });

  test("openai-compatible needs OPENAI_BASE_URL but no key", () => {
    const error = thrown(() => createModelClient(optionsWith({ RECALL_FAST_MODEL: "openai-compatible:llama3" }), "fast"));
    expect(error).toMatchObject({ missing: ["OPENAI_BASE_URL"] });

    const config = optionsWith({
      RECALL_FAST_MODEL: "openai-compatible:llama3",
      OPENAI_BASE_URL: "http://127.0.0.1:1/v1",
    });
    expect(createModelClient(config, "fast")).toMatchObject({ provider: "openai-compatible" });
  });
});

describe("requireModelClient", () => {
  test("an unset tier is a NoProviderError naming every way to configure it", () => {
    const error = thrown(() => requireModelClient(optionsWith({}), "strong"));

    expect(error).toBeInstanceOf(NoProviderError);
    expect(error).toMatchObject({ tier: "strong", missing: ["RECALL_STRONG_MODEL"] });
    expect((error as Error).message).toBe(
      "no strong model configured: set RECALL_STRONG_MODEL=anthropic:<model> and ANTHROPIC_API_KEY, " +
        "or RECALL_STRONG_MODEL=openai:<model> and OPENAI_API_KEY, " +
        "or RECALL_STRONG_MODEL=openai-compatible:<model> and OPENAI_BASE_URL (OPENAI_API_KEY optional)",
    );
  });
});

describe("configured clients reach the configured base URL", () => {
  let server: FakeLlmServer;
  beforeEach(async () => {
    server = await startFakeLlmServer();
  });
  afterEach(() => server.close());

  test("openai-compatible without a key sends a placeholder bearer token", async () => {
    server.script({ json: GOOD_FACTS });
    const config = optionsWith({ RECALL_FAST_MODEL: "openai-compatible:llama3", OPENAI_BASE_URL: server.openaiBaseUrl });
    await requireModelClient(config, "fast").complete(factsRequest());

    expect(server.requests[0]?.headers["authorization"]).toBe("Bearer openai-compatible-no-key");
  });
});
