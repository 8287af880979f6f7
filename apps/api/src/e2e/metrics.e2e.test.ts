// GET /metrics as Prometheus scrapes it, before and after real work through the service: stage
// durations, outcomes by error class, model calls, tokens and estimated cost per model and stage,
// the share of inputs each extraction stage finished, HTTP durations by route template.
import request from "supertest";
import { sampleValue, startFakeLlmServer, waitFor, type FakeLlmServer } from "@recall/test-support";
import { contextClient, createContext } from "../testing/api-client";
import { startHarness, type Harness } from "../testing/harness";

let h: Harness;
let llm: FakeLlmServer;
const MODEL = "openai-compatible:llama3:8b";

beforeAll(async () => {
  llm = await startFakeLlmServer();
  h = await startHarness({
    RECALL_FAST_MODEL: MODEL,
    OPENAI_API_KEY: "test-openai-key",
    OPENAI_BASE_URL: llm.openaiBaseUrl,
    LLM_TIMEOUT_MS: "5000",
    RECALL_MODEL_PRICES_JSON: JSON.stringify({ [MODEL]: "2/10" }),
  });
});

afterAll(async () => {
  await h?.close();
  await llm?.close();
});

const scrape = async () => {
  const res = await request(h.app).get("/metrics");
  expect(res.status).toBe(200);
  expect(res.headers["content-type"]).toMatch(/text\/plain/);
  return res.text;
};

const NO_FACTS = { entities: [], attributes: [], relations: [], instructions: [], revocations: [], uncertainties: [] };

test("series move with the work: stages, outcomes by class, model calls, tokens, cost, extraction shares, routes", async () => {
  const before = await scrape();
  const api = contextClient(h.app, await createContext(h.app, "metrics"));
  const session = await api.session();
  expect((await api.turn(session, "I'm Alice, CTO at Acme.", [])).extraction).toMatchObject({ status: "committed", stage: "heuristic" });
  llm.script({ json: NO_FACTS, usage: { inputTokens: 1_000, outputTokens: 100 } });
  expect((await api.turn(session, "Priya's team owns the payments gateway, which runs on Kubernetes.", [])).extraction).toMatchObject({
    status: "committed",
    stage: "fast",
  });
  llm.script({ status: 401, message: "invalid key" });
  const dead = await api.turn(session, "Jordan's group maintains the billing service on Nomad.", []);
  expect(dead.extraction).toMatchObject({ status: "failed", error_class: "provider" });
  // Truth maintenance of the committed turns finishes after their answers, and the dead extraction's job reaches
  // BullMQ's failed set after its work item is marked dead (which is what the turn answers): wait for both.
  const after = await waitFor(async () => {
    const text = await scrape();
    const tm = (t: string) =>
      sampleValue(t, "recall_work_items_finished_total", { queue: "truth_maintenance", status: "succeeded", error_class: "" });
    const failedJobs = sampleValue(text, "recall_queue_jobs", { queue: "extract_assertions", state: "failed" });
    return tm(text) - tm(before) >= 2 && failedJobs >= 1 ? text : undefined;
  });
  const moved = (name: string, labels: Record<string, string> = {}) => sampleValue(after, name, labels) - sampleValue(before, name, labels);

  expect(moved("recall_model_calls_total", { model: MODEL, stage: "fast", outcome: "ok" })).toBe(1);
  expect(moved("recall_model_calls_total", { model: MODEL, stage: "fast", outcome: "ProviderError" })).toBe(1);
  expect(moved("recall_model_tokens_total", { model: MODEL, stage: "fast", direction: "input" })).toBe(1_000);
  expect(moved("recall_model_tokens_total", { model: MODEL, stage: "fast", direction: "output" })).toBe(100);
  // 1,000 tokens in at $2 and 100 out at $10 per million.
  expect(moved("recall_model_cost_usd_total", { model: MODEL, stage: "fast" })).toBeCloseTo(0.003, 9);
  expect(moved("recall_extraction_inputs_total", { stage: "heuristic" })).toBe(1);
  expect(moved("recall_extraction_inputs_total", { stage: "fast" })).toBe(1);
  expect(moved("recall_work_items_finished_total", { queue: "extract_assertions", status: "dead", error_class: "provider" })).toBe(1);
  expect(moved("recall_work_items_finished_total", { queue: "commit_artifacts", status: "succeeded", error_class: "" })).toBe(2);
  expect(moved("recall_stage_duration_seconds_count", { queue: "extract_assertions", outcome: "succeeded" })).toBe(2);
  expect(moved("recall_stage_duration_seconds_count", { queue: "extract_assertions", outcome: "failed" })).toBe(1);
  expect(moved("recall_jobs_total", { queue: "extract_assertions", outcome: "dead", error_class: "provider" })).toBe(1);
  const turnsRoute = { method: "POST", route: "/api/v1/{contextId}/sessions/{sessionId}/turns", status: "200" };
  expect(moved("recall_http_request_duration_seconds_count", turnsRoute)).toBe(3);
  expect(after).not.toMatch(/route="\/api\/v1\/[0-9a-f-]{36}/);
  // The dead extraction's job stays in BullMQ's failed set, which the scrape reads from Redis.
  expect(sampleValue(after, "recall_queue_jobs", { queue: "extract_assertions", state: "failed" })).toBe(1);
  expect(after).toMatch(/^recall_outbox_lag_seconds \d/m);
});
