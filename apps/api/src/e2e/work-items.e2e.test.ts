// The work-item routes over HTTP, per context (API key) and across contexts (admin key), on the
// real service: a provider that refuses a call leaves a dead item to find, read, retry and cancel.
import request from "supertest";
import { startFakeLlmServer, waitFor, type FakeLlmServer } from "@recall/test-support";
import { contextClient, createContext, type ContextClient, type ContextHandle } from "../testing/api-client";
import { ADMIN_KEY, startHarness, type Harness } from "../testing/harness";

let h: Harness;
let llm: FakeLlmServer;
let acme: ContextHandle;
let other: ContextHandle;

beforeAll(async () => {
  llm = await startFakeLlmServer();
  h = await startHarness({
    RECALL_FAST_MODEL: "openai-compatible:llama3:8b",
    OPENAI_API_KEY: "test-openai-key",
    OPENAI_BASE_URL: llm.openaiBaseUrl,
    LLM_TIMEOUT_MS: "5000",
  });
  acme = await createContext(h.app, "acme");
  other = await createContext(h.app, "other");
});

afterAll(async () => {
  await h?.close();
  await llm?.close();
});

const NO_FACTS = { entities: [], attributes: [], relations: [], instructions: [], revocations: [], uncertainties: [] };
/** A turn no rule reads, so it goes to the model. */
const NEEDS_MODEL = "Priya's team owns the payments gateway, which runs on Kubernetes.";
const admin = (path: string) => request(h.app).get(`/api/v1/admin${path}`).set("Authorization", `Bearer ${ADMIN_KEY}`);
const adminPost = (path: string, body: object = {}) =>
  request(h.app).post(`/api/v1/admin${path}`).set("Authorization", `Bearer ${ADMIN_KEY}`).send(body);

/** A turn whose model call is refused (401: retrying the same call cannot help), so its extraction is dead. */
async function deadTurn(api: ContextClient, sessionId: string) {
  llm.script({ status: 401, message: "invalid key" });
  const turn = await api.turn(sessionId, NEEDS_MODEL, []);
  expect(turn.extraction).toMatchObject({ status: "failed", error_class: "provider" });
  return turn as typeof turn & { extraction: { work_item_id: string } };
}

test("failed work is listed by several statuses, queue, class and session, read with its attempts, and retried", async () => {
  const api = contextClient(h.app, acme);
  const sessionId = await api.session();
  const turn = await deadTurn(api, sessionId);
  const id = turn.extraction.work_item_id;

  const listed = await api.get(`/work-items?status=failed,dead&queue=extract_assertions&error_class=provider&session_id=${sessionId}`);
  expect(listed.status).toBe(200);
  expect(listed.body.work_items).toEqual([
    expect.objectContaining({ work_item_id: id, status: "dead", error: expect.objectContaining({ class: "provider" }) }),
  ]);
  expect((await api.get(`/work-items?status=succeeded&session_id=${sessionId}`)).body.work_items).toEqual([]);
  const bad = await api.get("/work-items?status=broken");
  expect(bad.status).toBe(400);
  expect(bad.body.errors[0].field).toBe("query.status.0");

  const detail = await api.get(`/work-items/${id}`);
  expect(detail.body).toMatchObject({ work_item_id: id, max_attempts: 5, trace_id: turn.trace_id });
  expect(detail.body.attempt_records).toEqual([
    expect.objectContaining({
      attempt: 1,
      status: "dead",
      error: { class: "provider", message: expect.stringMatching(/401/) },
      trace_id: turn.trace_id,
    }),
  ]);
  expect(detail.body.attempt_records[0].wall_ms).toEqual(expect.any(Number));

  llm.script({ json: NO_FACTS, usage: { inputTokens: 100, outputTokens: 20 } });
  expect((await api.post(`/work-items/${id}/retry`)).status).toBe(202);
  const done = await waitFor(async () => {
    const res = await api.get(`/work-items/${id}`);
    return res.body.status === "succeeded" ? res.body : undefined;
  });
  expect(done.attempt_records.map((a: { status: string }) => a.status)).toEqual(["dead", "succeeded"]);
  expect(done.attempt_records[1]).toMatchObject({ tokens_used: 120, trace_id: turn.trace_id });
  const retryAgain = await api.post(`/work-items/${id}/retry`);
  expect(retryAgain.status).toBe(409);
  expect(retryAgain.headers["content-type"]).toMatch(/problem\+json/);
});

test("retry-many by filter counts first; cancel says so; another context's items are not found", async () => {
  const api = contextClient(h.app, acme);
  const sessionId = await api.session();
  const [a, b] = [await deadTurn(api, sessionId), await deadTurn(api, sessionId)];
  const filter = { session_id: sessionId, status: ["dead"] };
  const dry = await api.post("/work-items/retries", { ...filter, dry_run: true });
  expect(dry.body).toMatchObject({ dry_run: true, matched: 2, retried: [] });

  const cancelled = await api.post(`/work-items/${b.extraction.work_item_id}/cancel`);
  expect(cancelled.body).toMatchObject({ status: "cancelled" });
  expect((await api.get(`/work-items/${b.extraction.work_item_id}`)).body.status).toBe("cancelled");
  expect((await api.post("/work-items/retries", { ...filter, dry_run: true })).body.matched).toBe(1);

  llm.script({ json: NO_FACTS });
  const retried = await api.post("/work-items/retries", filter);
  expect(retried.body.retried.map((i: { work_item_id: string }) => i.work_item_id)).toEqual([a.extraction.work_item_id]);
  await waitFor(async () => (await api.get(`/work-items/${a.extraction.work_item_id}`)).body.status === "succeeded" || undefined);
  expect((await api.get(`/work-items/${b.extraction.work_item_id}`)).body.status).toBe("cancelled");

  const foreign = contextClient(h.app, other);
  expect((await foreign.get(`/work-items/${a.extraction.work_item_id}`)).status).toBe(404);
  expect((await foreign.post(`/work-items/${b.extraction.work_item_id}/cancel`)).status).toBe(404);
  expect((await api.post(`/work-items/${a.extraction.work_item_id}/cancel`)).status).toBe(409);
  expect((await api.post(`/work-items/${a.extraction.work_item_id}/retry?from=extract`)).status).toBe(409);
});

test("the admin key sees every context's work items; a context key does not open the admin routes", async () => {
  const otherApi = contextClient(h.app, other);
  const turn = await deadTurn(otherApi, await otherApi.session());
  const all = await admin("/work-items?status=dead,cancelled&limit=500");
  expect(all.status).toBe(200);
  const contexts = new Set(all.body.work_items.map((i: { context_id: string }) => i.context_id));
  expect(contexts).toEqual(new Set([acme.contextId, other.contextId]));
  const narrowed = await admin(`/work-items?context_id=${other.contextId}&status=dead`);
  expect(narrowed.body.work_items.map((i: { work_item_id: string }) => i.work_item_id)).toEqual([turn.extraction.work_item_id]);
  expect((await admin(`/work-items/${turn.extraction.work_item_id}`)).body.attempt_records).toHaveLength(1);

  const page = await admin("/work-items?limit=1");
  expect(page.body.next_cursor).toEqual(expect.any(String));
  const next = await admin(`/work-items?limit=1&cursor=${page.body.next_cursor}`);
  expect(next.body.work_items[0].work_item_id).not.toBe(page.body.work_items[0].work_item_id);

  expect((await adminPost("/work-items/retries", { context_id: other.contextId, dry_run: true })).body.matched).toBe(1);
  llm.script({ json: NO_FACTS });
  expect((await adminPost(`/work-items/${turn.extraction.work_item_id}/retry`)).status).toBe(202);
  await waitFor(async () => (await admin(`/work-items/${turn.extraction.work_item_id}`)).body.status === "succeeded" || undefined);
  const denied = await request(h.app).get("/api/v1/admin/work-items").set("API-KEY", other.apiKey);
  expect(denied.status).toBe(401);
});
