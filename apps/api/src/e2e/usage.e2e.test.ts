// GET …/usage end to end: every model call the workers make is kept once with the attempt that made it (a
// window's one call for three turns is one call), summed per context by day, stage and model with the cost the
// price table gives, and across contexts under /api/v1/admin; the provider's own count of requests is the
// reference. Real Postgres, Redis, workers and the OpenAI SDK against the local wire-protocol server.
import request from "supertest";
import { startFakeLlmServer, waitFor, type FakeLlmServer } from "@recall/test-support";
import { contextClient, createContext, type ContextClient } from "../testing/api-client";
import { ADMIN_KEY, startHarness, type Harness } from "../testing/harness";

let h: Harness;
let llm: FakeLlmServer;

const MODEL = "openai-compatible:usage-fast";
const USAGE = { inputTokens: 1_000, outputTokens: 100 };
const EMPTY = { entities: [], attributes: [], relations: [], instructions: [], revocations: [], uncertainties: [] };

beforeAll(async () => {
  llm = await startFakeLlmServer();
  llm.respondWith(() => ({ json: EMPTY, usage: USAGE }));
  h = await startHarness({
    RECALL_FAST_MODEL: MODEL,
    OPENAI_BASE_URL: llm.openaiBaseUrl,
    // $2 per million prompt tokens, $8 per million completion tokens.
    RECALL_MODEL_PRICES_JSON: JSON.stringify({ [MODEL]: "2/8" }),
    RECALL_WINDOW_MAX_TURNS: "3",
    // Long enough that a window only closes by filling up: the batch's three turns share one call.
    RECALL_WINDOW_LINGER_MS: "4000",
  });
});

afterAll(async () => {
  await h?.close();
  await llm?.close();
});

const chatCalls = () => llm.requests.filter((r) => r.route === "openai").length;
/** Turns no rule can read: each needs the model. */
const NEEDS_MODEL = [
  "The bridge project in Porto was delayed because the steel supplier went bankrupt.",
  "Our quarterly review moved the Zephyr launch to October after the audit found gaps.",
  "Melanie told me her daughter started violin lessons with a teacher from Vienna last spring.",
];

interface UsageBody {
  group_by: string;
  totals: {
    calls: number;
    input_tokens: number;
    output_tokens: number;
    cost_usd: number;
    unpriced_calls: number;
    inputs_extracted: Record<string, number>;
  };
  groups: { key: string; calls: number; input_tokens: number; output_tokens: number; cost_usd: number }[];
}

async function usage(api: ContextClient, query = ""): Promise<UsageBody> {
  const res = await api.get(`/usage${query}`);
  expect(res.status).toBe(200);
  return res.body as UsageBody;
}

test("a context's usage counts each model call once, a window's too, with tokens and cost by stage, model and day", async () => {
  const spender = await createContext(h.app, "spender");
  const quietOne = await createContext(h.app, "quiet");
  const api = contextClient(h.app, spender);
  const quiet = contextClient(h.app, quietOne);
  const before = chatCalls();

  const session = await api.session();
  const single = await api.turn(session, NEEDS_MODEL[0]!, []);
  expect(single.extraction).toMatchObject({ status: "committed", stage: "fast" });
  // A turn the rules finish: extracted, no model call.
  const rules = await api.turn(session, "I'm Alice, CTO at Acme.", []);
  expect(rules.extraction).toMatchObject({ status: "committed", stage: "heuristic" });
  const batch = await api.post(`/sessions/${await api.session()}/turns/batch`, {
    turns: NEEDS_MODEL.map((content) => ({ role: "user", content })),
  });
  expect(batch.status).toBe(202);
  const statusPath = String(batch.body.status_url).replace(/^\/api\/v1\/[^/]+/, "");
  await waitFor(async () => (await api.get(statusPath)).body.state === "done", { what: "the batch", timeoutMs: 90_000 });

  // The provider saw two calls (the single turn's, the window's); usage says the same, with the same tokens.
  const calls = chatCalls() - before;
  expect(calls).toBe(2);
  const byStage = await waitFor(async () => {
    const body = await usage(api, "?group_by=stage");
    return body.totals.calls === calls ? body : undefined;
  });
  expect(byStage.totals).toEqual({
    calls: 2,
    input_tokens: 2_000,
    output_tokens: 200,
    cost_usd: (2 * (1_000 * 2 + 100 * 8)) / 1e6,
    unpriced_calls: 0,
    inputs_extracted: { heuristic: 1, fast: 4, strong: 0 },
  });
  expect(byStage.groups).toEqual([{ key: "fast", calls: 2, input_tokens: 2_000, output_tokens: 200, cost_usd: 0.0056, unpriced_calls: 0 }]);
  expect((await usage(api, "?group_by=model")).groups.map((g) => [g.key, g.calls])).toEqual([[MODEL, 2]]);
  const today = new Date().toISOString().slice(0, 10);
  expect((await usage(api)).groups.map((g) => [g.key, g.calls])).toEqual([[today, 2]]);
  // A range before any of it: nothing.
  const past = await usage(api, "?from=2020-01-01T00:00:00Z&to=2020-01-08T00:00:00Z");
  expect(past.totals).toMatchObject({ calls: 0, input_tokens: 0, cost_usd: 0, inputs_extracted: { heuristic: 0, fast: 0, strong: 0 } });
  expect(past.groups).toEqual([]);

  // Another context spent nothing; the admin view names both by context id.
  expect((await usage(quiet)).totals.calls).toBe(0);
  const admin = await request(h.app).get("/api/v1/admin/usage?group_by=context").set("Authorization", `Bearer ${ADMIN_KEY}`);
  expect(admin.status).toBe(200);
  const mine = (admin.body as UsageBody).groups.find((g) => g.key === spender.contextId);
  expect(mine).toMatchObject({ calls: 2, input_tokens: 2_000 });
  expect((admin.body as UsageBody).groups.find((g) => g.key === quietOne.contextId)).toBeUndefined();
});

test("bad ranges and groupings are 400s naming the field; a context key reads only its own usage", async () => {
  const mine = await createContext(h.app, "ranges");
  const other = await createContext(h.app, "other");
  const api = contextClient(h.app, mine);
  const bad = async (query: string, field: string) => {
    const res = await api.get(`/usage${query}`);
    expect([query, res.status]).toEqual([query, 400]);
    expect([query, JSON.stringify(res.body)]).toEqual([query, expect.stringContaining(field)]);
  };
  await bad("?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z", "query.from");
  await bad("?from=2020-01-01T00:00:00Z&to=2026-01-01T00:00:00Z", "query.from");
  await bad("?from=yesterday", "from");
  await bad("?group_by=context", "group_by");
  await bad("?group_by=week", "group_by");
  // Another context's key on this context's path.
  const crossed = await request(h.app).get(`/api/v1/${mine.contextId}/usage`).set("API-KEY", other.apiKey);
  expect([401, 403, 404]).toContain(crossed.status);
});
