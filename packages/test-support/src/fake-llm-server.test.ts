import { defaultEmbedding } from "./fake-embeddings";
import { startFakeLlmServer, type FakeLlmServer } from "./fake-llm-server";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- raw JSON of either wire protocol
async function post(url: string, body: unknown): Promise<{ status: number; headers: Headers; json: any }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, json: await res.json() };
}

const anthropicBody = { model: "m", max_tokens: 100, messages: [], tool_choice: { type: "tool", name: "out" } };
const openaiBody = { model: "m", messages: [] };

describe("fake LLM server", () => {
  let server: FakeLlmServer;
  beforeEach(async () => {
    server = await startFakeLlmServer();
  });
  afterEach(() => server.close());

  test("answers both routes from one queue, in order, and records the requests", async () => {
    server.script({ json: { a: 1 } }, { json: { b: 2 }, usage: { inputTokens: 7, outputTokens: 3 } });
    const anthropic = await post(`${server.anthropicBaseUrl}/v1/messages`, anthropicBody);
    const openai = await post(`${server.openaiBaseUrl}/chat/completions`, openaiBody);

    expect(anthropic.json).toMatchObject({
      type: "message",
      stop_reason: "tool_use",
      content: [{ type: "tool_use", name: "out", input: { a: 1 } }],
      usage: { input_tokens: 10, output_tokens: 5 },
    });
    expect(openai.json).toMatchObject({
      choices: [{ message: { content: '{"b":2}' }, finish_reason: "stop" }],
      usage: { prompt_tokens: 7, completion_tokens: 3 },
    });
    expect(server.requests.map((r) => r.route)).toEqual(["anthropic", "openai"]);
    expect(server.requests[1]?.body).toEqual(openaiBody);
  });

  test("scripted errors carry the provider's error shape and retry headers", async () => {
    server.script({ status: 429, retryAfter: "2", retryAfterMs: "2000" });
    const res = await post(`${server.anthropicBaseUrl}/v1/messages`, anthropicBody);

    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("2");
    expect(res.headers.get("retry-after-ms")).toBe("2000");
    expect(res.json).toMatchObject({ type: "error", error: { type: "rate_limit_error" } });
  });

  test("truncated answers cut the JSON and report the token limit", async () => {
    server.script({ truncated: true, json: { a: 1, b: 2 } }, { truncated: true, json: { a: 1, b: 2 } });
    const anthropic = await post(`${server.anthropicBaseUrl}/v1/messages`, anthropicBody);
    const openai = await post(`${server.openaiBaseUrl}/chat/completions`, openaiBody);

    expect(anthropic.json).toMatchObject({ stop_reason: "max_tokens", content: [{ input: { a: 1 } }] });
    expect(openai.json.choices[0].finish_reason).toBe("length");
    expect(() => JSON.parse(openai.json.choices[0].message.content)).toThrow();
  });

  test("a request the real API would reject gets a 400 and leaves the script alone", async () => {
    server.script({ json: { a: 1 } });
    const bad = await post(`${server.anthropicBaseUrl}/v1/messages`, { model: "m", messages: [] });
    const good = await post(`${server.anthropicBaseUrl}/v1/messages`, anthropicBody);

    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toContain("max_tokens");
    expect(good.json.content[0].input).toEqual({ a: 1 });
  });

  test("an empty queue answers 418 saying so", async () => {
    const res = await post(`${server.openaiBaseUrl}/chat/completions`, openaiBody);
    expect(res.status).toBe(418);
    expect(res.json.error.message).toContain("no scripted response left");
  });
});

describe("fake embeddings", () => {
  let server: FakeLlmServer;
  beforeEach(async () => {
    server = await startFakeLlmServer();
  });
  afterEach(() => server.close());

  const cosine = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

  test("the default embedding is deterministic, unit length, and closer for texts sharing words", () => {
    const gearbox = defaultEmbedding("The gearbox rattles in winter");
    expect(defaultEmbedding("The gearbox rattles in winter")).toEqual(gearbox);
    expect(cosine(gearbox, gearbox)).toBeCloseTo(1);
    expect(cosine(gearbox, defaultEmbedding("gearbox rattles"))).toBeGreaterThan(cosine(gearbox, defaultEmbedding("Alice likes tea")));
  });

  test("answers in OpenAI's shape, float or base64, with pinned vectors and scripted errors; requests are recorded", async () => {
    server.embeddings.pin("pinned", [0.5, 0.5]);
    server.embeddings.script({ status: 503 });
    const failed = await post(`${server.openaiBaseUrl}/embeddings`, { model: "m", input: "pinned" });
    const floats = await post(`${server.openaiBaseUrl}/embeddings`, { model: "m", input: ["pinned", "two words"], dimensions: 2 });
    const base64 = await post(`${server.openaiBaseUrl}/embeddings`, { model: "m", input: "pinned", encoding_format: "base64" });

    expect(failed.status).toBe(503);
    expect(floats.json).toMatchObject({
      object: "list",
      data: [
        { index: 0, embedding: [0.5, 0.5] },
        { index: 1, embedding: defaultEmbedding("two words", 2) },
      ],
      usage: { prompt_tokens: 3 },
    });
    // A copy: Buffer.from may hand out a slice of a shared pool, not aligned for floats.
    const decoded = new Float32Array(Uint8Array.from(Buffer.from(base64.json.data[0].embedding, "base64")).buffer);
    expect([...decoded]).toEqual([0.5, 0.5]);
    expect(server.requests.map((r) => r.route)).toEqual(["embeddings", "embeddings", "embeddings"]);
  });

  test("an empty input is rejected as the real API does", async () => {
    const res = await post(`${server.openaiBaseUrl}/embeddings`, { model: "m", input: [""] });
    expect(res.status).toBe(400);
  });
});
