import { configWith, providerOptions, type Config } from "@recall/config";
import { defaultEmbedding, startFakeLlmServer, type FakeLlmServer } from "@recall/test-support";
import { createEmbeddingClient } from "./create-embedding-client";
import { NoProviderError, ProviderError } from "./llm-errors";

type Env = Partial<Record<keyof Config, string>>;

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error("expected a throw");
}

describe("createEmbeddingClient", () => {
  test("unset means no client: vector search is off", () => {
    expect(createEmbeddingClient(providerOptions(configWith({ OPENAI_API_KEY: "k" })))).toBeUndefined();
  });

  test("openai needs OPENAI_API_KEY, openai-compatible needs OPENAI_BASE_URL, and the error says what to set", () => {
    const openai = thrown(() =>
      createEmbeddingClient(providerOptions(configWith({ RECALL_EMBEDDING_MODEL: "openai:text-embedding-3-small" }))),
    );
    expect(openai).toBeInstanceOf(NoProviderError);
    expect(openai).toMatchObject({ tier: "embedding", missing: ["OPENAI_API_KEY"] });
    expect((openai as Error).message).toContain("unset RECALL_EMBEDDING_MODEL");
    const compatible = thrown(() =>
      createEmbeddingClient(providerOptions(configWith({ RECALL_EMBEDDING_MODEL: "openai-compatible:nomic-embed-text" }))),
    );
    expect(compatible).toMatchObject({ missing: ["OPENAI_BASE_URL"] });
  });
});

describe("OpenAI embedding client against the embeddings wire protocol", () => {
  let server: FakeLlmServer;
  beforeEach(async () => {
    server = await startFakeLlmServer();
  });
  afterEach(() => server.close());

  const client = (env: Env = {}) => {
    const made = createEmbeddingClient(
      providerOptions(
        configWith({
          RECALL_EMBEDDING_MODEL: "openai:text-embedding-3-small",
          OPENAI_API_KEY: "test-openai-key",
          OPENAI_BASE_URL: server.openaiBaseUrl,
          LLM_TIMEOUT_MS: "5000",
          ...env,
        }),
      ),
    );
    if (!made) throw new Error("embedding model not configured");
    return made;
  };

  test("one request for the batch: floats, the requested dimensions, vectors in input order, usage metered", async () => {
    server.embeddings.pin("second", [0, 1, 0, 0]);
    const result = await client({ RECALL_EMBEDDING_DIMENSIONS: "4" }).embed(["first text", "second"]);

    expect(result.vectors).toEqual([defaultEmbedding("first text", 4), [0, 1, 0, 0]]);
    expect(result.usage).toEqual({ inputTokens: 3, outputTokens: 0 });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({
      route: "embeddings",
      path: "/v1/embeddings",
      headers: { authorization: "Bearer test-openai-key" },
      body: { model: "text-embedding-3-small", input: ["first text", "second"], encoding_format: "float", dimensions: 4 },
    });
  });

  test("the model ref labels the vectors; nothing to embed makes no request", async () => {
    const embeddings = client();
    expect(embeddings.modelRef).toBe("openai:text-embedding-3-small");
    expect(await embeddings.embed([])).toMatchObject({ vectors: [], usage: { inputTokens: 0 } });
    expect(server.requests).toHaveLength(0);
  });

  test("errors are classified like chat errors: 429 with retry-after, 500 retryable, 401 not", async () => {
    server.embeddings.script({ status: 429, retryAfter: "2" }, { status: 500 }, { status: 401 });
    const errors = [];
    for (let i = 0; i < 3; i++)
      errors.push(
        await client()
          .embed(["x"])
          .catch((e: unknown) => e),
      );

    expect(errors.every((e) => e instanceof ProviderError)).toBe(true);
    expect(errors).toMatchObject([
      { kind: "rate_limit", retryable: true, retryAfterMs: 2_000 },
      { kind: "server", retryable: true, status: 500 },
      { kind: "auth", retryable: false },
    ]);
  });

  test("a reply slower than the timeout is a retryable timeout", async () => {
    server.embeddings.script({ delayMs: 3_000 });
    const error = await client({ LLM_TIMEOUT_MS: "200" })
      .embed(["x"])
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "ProviderError", kind: "timeout", retryable: true });
  });

  test("a model that ignores the requested dimensions is refused for good, naming the setting", async () => {
    server.embeddings.pin("x", [1, 0, 0]);
    const error = await client({ RECALL_EMBEDDING_DIMENSIONS: "8" })
      .embed(["x"])
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "ProviderError", kind: "bad_request", retryable: false });
    expect((error as Error).message).toContain("RECALL_EMBEDDING_DIMENSIONS");
  });
});
