import { startFakeLlmServer, type FakeLlmServer } from "@recall/test-support";
import { MalformedOutputError, OutputValidationError, ProviderError } from "./llm-errors";
import { fakeClient, factsRequest, GOOD_FACTS } from "./testing/test-clients";

describe("OpenAI client against the Chat Completions wire protocol", () => {
  let server: FakeLlmServer;
  beforeEach(async () => {
    server = await startFakeLlmServer();
  });
  afterEach(() => server.close());

  test("asks for a strict json_schema and parses the content, value and usage", async () => {
    server.script({ json: GOOD_FACTS, usage: { inputTokens: 200, outputTokens: 30 } });
    const result = await fakeClient(server, "openai").complete(factsRequest());

    expect(result.value).toEqual(GOOD_FACTS);
    expect(result.usage).toEqual({ inputTokens: 200, outputTokens: 30 });
    expect(result.model).toBe("gpt-test");
    const [request] = server.requests;
    expect(request?.path).toBe("/v1/chat/completions");
    expect(request?.headers["authorization"]).toBe("Bearer test-openai-key");
    expect(request?.body).toMatchObject({
      model: "gpt-test",
      max_completion_tokens: 1_024,
      messages: [
        { role: "system", content: "Extract facts." },
        { role: "user", content: "I'm Alice, CTO at Acme." },
      ],
      response_format: {
        type: "json_schema",
        json_schema: {
          name: "record_facts",
          strict: true,
          schema: { type: "object", additionalProperties: false, required: ["facts", "confidence"] },
        },
      },
    });
  });

  test("openai-compatible sends max_tokens and works without an API key", async () => {
    server.script({ json: GOOD_FACTS });
    const result = await fakeClient(server, "openai-compatible").complete(factsRequest());

    expect(result.value).toEqual(GOOD_FACTS);
    const [request] = server.requests;
    expect(request?.body).toMatchObject({ model: "llama3:8b", max_tokens: 1_024 });
    expect(request?.body).not.toHaveProperty("max_completion_tokens");
  });

  test("429 honours retry-after-ms", async () => {
    server.script({ status: 429, retryAfterMs: "1500" });
    const error = await fakeClient(server, "openai")
      .complete(factsRequest())
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: "rate_limit", retryable: true, retryAfterMs: 1_500 });
    expect(server.requests).toHaveLength(1);
  });

  test("429 honours retry-after as an HTTP date", async () => {
    const at = new Date(Date.now() + 30_000).toUTCString();
    server.script({ status: 429, retryAfter: at });
    const error = (await fakeClient(server, "openai")
      .complete(factsRequest())
      .catch((e: unknown) => e)) as ProviderError;

    expect(error.kind).toBe("rate_limit");
    expect(error.retryAfterMs).toBeGreaterThan(25_000);
    expect(error.retryAfterMs).toBeLessThanOrEqual(30_000);
  });

  test("500 is a retryable server error, attempted once", async () => {
    server.script({ status: 500 });
    const error = await fakeClient(server, "openai")
      .complete(factsRequest())
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: "server", retryable: true, status: 500 });
    expect(server.requests).toHaveLength(1);
  });

  test("a response slower than LLM_TIMEOUT_MS is a retryable timeout", async () => {
    server.script({ delayMs: 3_000, json: GOOD_FACTS });
    const error = await fakeClient(server, "openai", { LLM_TIMEOUT_MS: "200" })
      .complete(factsRequest())
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: "timeout", retryable: true });
  });

  test("an unreachable provider is a retryable connection error", async () => {
    const client = fakeClient(server, "openai");
    await server.close();
    const error = await client.complete(factsRequest()).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: "connection", retryable: true });
    server = await startFakeLlmServer(); // for afterEach
  });

  test("non-JSON content is malformed and keeps the raw text", async () => {
    server.script({ raw: "not json" });
    const error = await fakeClient(server, "openai")
      .complete(factsRequest())
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(MalformedOutputError);
    expect(error).toMatchObject({ reason: "not_json", rawText: "not json" });
  });

  test("finish_reason length is truncated output", async () => {
    server.script({ truncated: true, json: GOOD_FACTS });
    const error = await fakeClient(server, "openai")
      .complete(factsRequest())
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(MalformedOutputError);
    expect(error).toMatchObject({ reason: "truncated" });
    expect(() => JSON.parse((error as MalformedOutputError).rawText)).toThrow();
  });

  test("JSON failing the schema carries the zod issues and the raw text", async () => {
    server.script({ json: { facts: "none", confidence: 0.5 } });
    const error = await fakeClient(server, "openai")
      .complete(factsRequest())
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(OutputValidationError);
    expect((error as OutputValidationError).issues.map((issue) => issue.path.join("."))).toEqual(["facts"]);
    expect((error as OutputValidationError).rawText).toBe('{"facts":"none","confidence":0.5}');
  });
});
