import { startFakeLlmServer, type FakeLlmServer } from "@recall/test-support";
import { MalformedOutputError, OutputValidationError, ProviderError } from "./llm-errors";
import { fakeClient, factsRequest, GOOD_FACTS } from "./testing/test-clients";

describe("Anthropic client against the Messages wire protocol", () => {
  let server: FakeLlmServer;
  beforeEach(async () => {
    server = await startFakeLlmServer();
  });
  afterEach(() => server.close());

  test("forces one tool whose input is the answer, and reads value and usage", async () => {
    server.script({ json: GOOD_FACTS, usage: { inputTokens: 321, outputTokens: 45 } });
    const result = await fakeClient(server, "anthropic").complete(factsRequest());

    expect(result.value).toEqual(GOOD_FACTS);
    expect(result.usage).toEqual({ inputTokens: 321, outputTokens: 45 });
    expect(result.model).toBe("claude-test");
    const [request] = server.requests;
    expect(request?.path).toBe("/v1/messages");
    expect(request?.body).toMatchObject({
      model: "claude-test",
      max_tokens: 1_024,
      system: "Extract facts.",
      messages: [{ role: "user", content: "I'm Alice, CTO at Acme." }],
      tool_choice: { type: "tool", name: "record_facts" },
      tools: [{ name: "record_facts", input_schema: { type: "object", required: ["facts", "confidence"] } }],
    });
    expect(request?.headers["authorization"] ?? request?.headers["x-api-key"]).toContain("test-anthropic-key");
  });

  test("429 becomes a retryable rate_limit error carrying retry-after, with no SDK retry", async () => {
    server.script({ status: 429, retryAfter: "2" });
    const error = await fakeClient(server, "anthropic")
      .complete(factsRequest())
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: "rate_limit", retryable: true, retryAfterMs: 2_000, status: 429 });
    expect(server.requests).toHaveLength(1);
  });

  test.each([
    [500, "server", true],
    [529, "server", true],
    [401, "auth", false],
    [400, "bad_request", false],
  ])("%i becomes %s (retryable %s)", async (status, kind, retryable) => {
    server.script({ status });
    const error = await fakeClient(server, "anthropic")
      .complete(factsRequest())
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind, retryable, status });
    expect(server.requests).toHaveLength(1);
  });

  test("a response slower than LLM_TIMEOUT_MS is a retryable timeout", async () => {
    server.script({ delayMs: 3_000, json: GOOD_FACTS });
    const client = fakeClient(server, "anthropic", { LLM_TIMEOUT_MS: "200" });
    const started = Date.now();
    const error = await client.complete(factsRequest()).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: "timeout", retryable: true });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  test("an unreachable provider is a retryable connection error", async () => {
    const client = fakeClient(server, "anthropic");
    await server.close();
    const error = await client.complete(factsRequest()).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: "connection", retryable: true });
    server = await startFakeLlmServer(); // for afterEach
  });

  test("a text answer without the tool call is malformed and keeps the text", async () => {
    server.script({ raw: "Sure! Alice is the CTO." });
    const error = await fakeClient(server, "anthropic")
      .complete(factsRequest())
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(MalformedOutputError);
    expect(error).toMatchObject({ reason: "missing_tool_call", rawText: "Sure! Alice is the CTO." });
  });

  test("stop_reason max_tokens is truncated output even when a partial tool input came back", async () => {
    server.script({ truncated: true, json: GOOD_FACTS, usage: { inputTokens: 50, outputTokens: 1_024 } });
    const error = await fakeClient(server, "anthropic")
      .complete(factsRequest())
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(MalformedOutputError);
    expect(error).toMatchObject({ reason: "truncated", usage: { inputTokens: 50, outputTokens: 1_024 } });
    expect((error as MalformedOutputError).rawText).toContain("facts");
  });

  test("a tool input that fails the schema carries the zod issues", async () => {
    server.script({ json: { facts: [{ subject: "alice", statement: "" }], confidence: 3 } });
    const error = await fakeClient(server, "anthropic")
      .complete(factsRequest())
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(OutputValidationError);
    const paths = (error as OutputValidationError).issues.map((issue) => issue.path.join("."));
    expect(paths.sort()).toEqual(["confidence", "facts.0.statement"]);
  });

  test("a caller abort surfaces as the abort reason, not as a provider failure", async () => {
    server.script({ delayMs: 3_000, json: GOOD_FACTS });
    const controller = new AbortController();
    const pending = fakeClient(server, "anthropic").complete(factsRequest({ signal: controller.signal }));
    setTimeout(() => controller.abort(new Error("shutting down")), 50);

    await expect(pending).rejects.toThrow("shutting down");
  });
});
