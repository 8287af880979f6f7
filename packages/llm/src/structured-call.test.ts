import { startFakeLlmServer, type FakeLlmServer, type FakeRecordedRequest } from "@recall/test-support";
import { Budget } from "./budget";
import { BudgetExceededError, MalformedOutputError, OutputValidationError, ProviderError } from "./llm-errors";
import { promptTokens } from "./prompt-tokens";
import { structuredCall } from "./structured-call";
import { fakeClient, factsRequest, GOOD_FACTS, type TestProvider } from "./testing/test-clients";

const roomyBudget = () => new Budget({ maxTokens: 100_000, maxWallMs: 60_000 });

/** The text of every message after the first user turn, whatever the provider's message shape. */
function repairTranscript(request: FakeRecordedRequest | undefined): string {
  const messages = (request?.body["messages"] ?? []) as Array<{ role: string; content: unknown }>;
  return messages
    .filter((m) => m.role !== "system")
    .slice(1)
    .map((m) => `${m.role}: ${String(m.content)}`)
    .join("\n");
}

describe.each<TestProvider>(["anthropic", "openai"])("structuredCall via %s", (provider) => {
  let server: FakeLlmServer;
  beforeEach(async () => {
    server = await startFakeLlmServer();
  });
  afterEach(() => server.close());

  test("a good first answer is returned after one call and charged to the budget", async () => {
    server.script({ json: GOOD_FACTS, usage: { inputTokens: 100, outputTokens: 20 } });
    const budget = roomyBudget();
    const result = await structuredCall(fakeClient(server, provider), factsRequest(), { budget });

    expect(result).toMatchObject({
      value: GOOD_FACTS,
      attempts: 1,
      totalUsage: { inputTokens: 100, outputTokens: 20 },
    });
    expect(budget.used.totalTokens).toBe(120);
    expect(server.requests).toHaveLength(1);
  });

  test("malformed output is repaired once: the model sees its answer and the problem", async () => {
    server.script(
      { raw: "Alice is CTO", usage: { inputTokens: 100, outputTokens: 10 } },
      { json: GOOD_FACTS, usage: { inputTokens: 150, outputTokens: 20 } },
    );
    const budget = roomyBudget();
    const result = await structuredCall(fakeClient(server, provider), factsRequest(), { budget });

    expect(result).toMatchObject({ value: GOOD_FACTS, attempts: 2, usage: { inputTokens: 150, outputTokens: 20 } });
    expect(result.totalUsage).toEqual({ inputTokens: 250, outputTokens: 30 });
    expect(budget.used.totalTokens).toBe(280);
    const transcript = repairTranscript(server.requests[1]);
    expect(transcript).toContain("assistant: Alice is CTO");
    expect(transcript).toMatch(/user: Your previous answer could not be used:\n- /);
  });

  test("schema failures are repaired with the validation errors listed by path", async () => {
    server.script({ json: { facts: [{ subject: "alice", statement: "" }], confidence: 0.5 } }, { json: GOOD_FACTS });
    const result = await structuredCall(fakeClient(server, provider), factsRequest(), { budget: roomyBudget() });

    expect(result.value).toEqual(GOOD_FACTS);
    const transcript = repairTranscript(server.requests[1]);
    expect(transcript).toContain('"statement":""');
    expect(transcript).toMatch(/- facts\.0\.statement: Too small/);
  });

  test("truncated output twice ends in OutputValidationError caused by the truncation", async () => {
    server.script({ truncated: true, json: GOOD_FACTS }, { truncated: true, json: GOOD_FACTS });
    const error = await structuredCall(fakeClient(server, provider), factsRequest(), { budget: roomyBudget() }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(OutputValidationError);
    expect(error).toMatchObject({ attempts: 2 });
    expect((error as OutputValidationError).cause).toBeInstanceOf(MalformedOutputError);
    expect((error as OutputValidationError).issues[0]?.message).toMatch(/cut off/);
    expect(repairTranscript(server.requests[1])).toMatch(/give a shorter answer/);
    expect(server.requests).toHaveLength(2);
  });

  test("invalid output twice ends in OutputValidationError with the second answer's issues", async () => {
    server.script({ json: { facts: [], confidence: 7 } }, { json: { facts: "none", confidence: 0.5 } });
    const error = await structuredCall(fakeClient(server, provider), factsRequest(), { budget: roomyBudget() }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(OutputValidationError);
    expect((error as OutputValidationError).issues.map((i) => i.path.join("."))).toEqual(["facts"]);
    expect((error as OutputValidationError).rawText).toContain('"facts":"none"');
    expect(server.requests).toHaveLength(2);
  });

  test("provider errors propagate unchanged, with no repair attempt", async () => {
    server.script({ status: 500 }, { json: GOOD_FACTS });
    const error = await structuredCall(fakeClient(server, provider), factsRequest(), { budget: roomyBudget() }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: "server", retryable: true });
    expect(server.requests).toHaveLength(1);
  });

  test("a provider error on the repair call propagates as itself", async () => {
    server.script({ raw: "oops" }, { status: 429, retryAfter: "4" });
    const error = await structuredCall(fakeClient(server, provider), factsRequest(), { budget: roomyBudget() }).catch((e: unknown) => e);

    expect(error).toMatchObject({ kind: "rate_limit", retryAfterMs: 4_000 });
  });

  test("a spent token budget stops the call before any request", async () => {
    const budget = new Budget({ maxTokens: 100, maxWallMs: 60_000 });
    budget.charge({ inputTokens: 80, outputTokens: 20 });
    const error = await structuredCall(fakeClient(server, provider), factsRequest(), { budget }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(BudgetExceededError);
    expect(error).toMatchObject({ limit: "tokens", tokensUsed: 100, maxTokens: 100 });
    expect(server.requests).toHaveLength(0);
  });

  test("a bad answer that leaves too little for the repair's prompt gets no repair", async () => {
    server.script({ raw: "no", usage: { inputTokens: 700, outputTokens: 200 } }, { json: GOOD_FACTS });
    const budget = new Budget({ maxTokens: 1_000, maxWallMs: 60_000 });
    const error = await structuredCall(fakeClient(server, provider), factsRequest(), { budget }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(BudgetExceededError);
    expect(error).toMatchObject({ limit: "tokens", tokensUsed: 900, promptTokens: expect.any(Number) });
    expect((error as Error).message).toMatch(/the prompt needs .* tokens and 100 of 1000 are left; the call was not made/);
    expect(server.requests).toHaveLength(1);
    expect(budget.used.totalTokens).toBeLessThanOrEqual(1_000);
  });

  test("the answer is capped to what the budget leaves after the prompt", async () => {
    server.script({ json: GOOD_FACTS, usage: { inputTokens: 150, outputTokens: 5_000 } });
    const budget = new Budget({ maxTokens: 600, maxWallMs: 60_000 });
    const prompt = await promptTokens(factsRequest(), Infinity);
    await structuredCall(fakeClient(server, provider), factsRequest({ maxTokens: 4_096 }), { budget });

    const sent = server.requests[0]!.body;
    const cap = (sent["max_tokens"] ?? sent["max_completion_tokens"]) as number;
    expect(cap).toBe(600 - prompt);
    expect(budget.used.totalTokens).toBeLessThanOrEqual(600);
  });

  test("a prompt larger than the whole budget is never sent", async () => {
    const budget = new Budget({ maxTokens: 40, maxWallMs: 60_000 });
    const error = await structuredCall(fakeClient(server, provider), factsRequest(), { budget }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(BudgetExceededError);
    expect(error).toMatchObject({ limit: "tokens", tokensUsed: 0, promptTokens: Infinity });
    expect(server.requests).toHaveLength(0);
  });

  test("a spent wall-time budget stops the call before any request", async () => {
    const budget = new Budget({ maxTokens: 100_000, maxWallMs: 1_000, startedAt: Date.now() - 2_000 });
    const error = await structuredCall(fakeClient(server, provider), factsRequest(), { budget }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(BudgetExceededError);
    expect(error).toMatchObject({ limit: "wall_time", maxWallMs: 1_000 });
    expect(server.requests).toHaveLength(0);
  });

  test("an in-flight call is cut when the wall-time budget runs out, well before LLM_TIMEOUT_MS", async () => {
    server.script({ delayMs: 5_000, json: GOOD_FACTS });
    const budget = new Budget({ maxTokens: 100_000, maxWallMs: 300 });
    const client = fakeClient(server, provider, { LLM_TIMEOUT_MS: "10000" });
    const error = await structuredCall(client, factsRequest(), { budget }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(BudgetExceededError);
    expect(error).toMatchObject({ limit: "wall_time" });
    expect(budget.elapsedMs).toBeLessThan(2_000);
  });

  test("the caller's own abort is not reported as a budget overrun", async () => {
    server.script({ delayMs: 5_000, json: GOOD_FACTS });
    const controller = new AbortController();
    const pending = structuredCall(fakeClient(server, provider), factsRequest({ signal: controller.signal }), {
      budget: roomyBudget(),
    });
    setTimeout(() => controller.abort(new Error("job cancelled")), 50);

    await expect(pending).rejects.toThrow("job cancelled");
  });
});
