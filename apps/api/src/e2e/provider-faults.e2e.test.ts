// Provider faults end to end, to the last attempt: one document meets a different fault on every
// try (a hang past the timeout, an answer cut off twice, a 500, then 429s with retry-after) until
// the queue gives up. The item ends dead with one attempt record per try, the document is kept,
// and an operator's retry once the provider is healthy again commits it. The single faults and
// escalation to the strong model are covered one by one in extraction.e2e.test.ts.
import request from "supertest";
import { startFakeLlmServer, waitFor, type FakeLlmServer } from "@recall/test-support";
import { startHarness, type Harness } from "../testing/harness";
import { createContext, type ContextHandle } from "../testing/api-client";

let h: Harness;
let llm: FakeLlmServer;
let ctx: ContextHandle;

beforeAll(async () => {
  llm = await startFakeLlmServer();
  h = await startHarness({
    RECALL_FAST_MODEL: "openai:gpt-fast",
    OPENAI_API_KEY: "test-openai-key",
    OPENAI_BASE_URL: llm.openaiBaseUrl,
    LLM_TIMEOUT_MS: "1000",
  });
  ctx = await createContext(h.app, "faults");
});

afterAll(async () => {
  await h?.close();
  await llm?.close();
});

const TEXT = "Osprey is the ledger. It stores entries in Postgres.";
const FACTS = {
  entities: [],
  attributes: [],
  relations: [
    {
      subject: "Osprey",
      verb: "stores_in",
      object: "Postgres",
      memory_category: "knowledge",
      evidence: "It stores entries in Postgres",
      confidence: 0.9,
      significance: "high",
      valid_from: null,
      valid_to: null,
    },
  ],
  instructions: [],
  revocations: [],
  uncertainties: [],
};

const get = (path: string) => request(h.app).get(`/api/v1/${ctx.contextId}${path}`).set("API-KEY", ctx.apiKey);
const post = (path: string, body: object = {}) =>
  request(h.app).post(`/api/v1/${ctx.contextId}${path}`).set("API-KEY", ctx.apiKey).send(body);

function settled(documentId: string) {
  return waitFor(
    async () => {
      const res = await get(`/documents/${documentId}/status`);
      return res.body.state === "committed" || res.body.state === "failed" ? res.body : undefined;
    },
    { what: `document ${documentId} to settle`, timeoutMs: 60_000 },
  );
}

test("every attempt fails differently; the item ends dead with its input kept, and a retry after the fault commits it", async () => {
  const mark = llm.requests.length;
  llm.script(
    { json: FACTS, delayMs: 3_000 },
    { truncated: true, json: FACTS },
    { truncated: true, json: FACTS },
    { status: 500, retryAfterMs: "100" },
    { status: 429, retryAfterMs: "100" },
    { status: 429, retryAfter: "0" },
  );
  const posted = await post("/documents", { text: TEXT });
  expect(posted.status).toBe(202);
  const documentId = posted.body.document_id;
  const failed = await settled(documentId);

  expect(failed.state).toBe("failed");
  const [extract] = failed.stages;
  expect(extract).toMatchObject({ queue: "extract_assertions", status: "dead", attempts: 5, error: { class: "provider" } });
  const item = await h.api.db.workItem.findFirstOrThrow({ where: { subjectId: documentId, queue: "extract_assertions" } });
  const tries = await h.api.db.workAttempt.findMany({ where: { workItemId: item.id }, orderBy: { attempt: "asc" } });
  expect(tries.map((t) => [t.attempt, t.status, t.errorClass])).toEqual([
    [1, "failed", "provider"],
    [2, "failed", "provider"],
    [3, "failed", "provider"],
    [4, "failed", "provider"],
    [5, "dead", "provider"],
  ]);
  expect(tries.map((t) => t.errorMessage)).toEqual([
    expect.stringMatching(/did not answer within 1000 ms/),
    expect.stringMatching(/cut off|truncat|not JSON|length/i),
    expect.stringMatching(/500/),
    expect.stringMatching(/429/),
    expect.stringMatching(/429/),
  ]);
  expect(llm.requests.length - mark).toBe(6);
  expect(await h.api.db.assertion.count({ where: { documentId } })).toBe(0);

  // Dead, listed for operators, and its input kept as it was accepted.
  const dead = await get("/work-items?status=dead");
  expect(dead.body.work_items.map((i: { work_item_id: string }) => i.work_item_id)).toContain(item.id);
  expect((await h.api.db.document.findUniqueOrThrow({ where: { id: documentId } })).text).toBe(TEXT);

  llm.script({ json: FACTS });
  expect((await post(`/work-items/${item.id}/retry`)).status).toBe(202);
  const committed = await settled(documentId);
  expect(committed.state).toBe("committed");
  expect(await h.api.db.assertion.count({ where: { documentId } })).toBe(1);
  const after = await h.api.db.workAttempt.findMany({ where: { workItemId: item.id }, orderBy: { attempt: "asc" } });
  expect(after.at(-1)).toMatchObject({ attempt: 6, status: "succeeded", errorClass: null });
});
