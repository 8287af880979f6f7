// A context created with config `require_scope: true` refuses every write without a scope (400
// naming the field) and stores nothing of it; other contexts keep taking unscoped writes, which
// every reader of the context sees (docs/scope.md).
import request from "supertest";
import { ADMIN_KEY, startHarness, type Harness } from "../testing/harness";
import { contextClient, createContext, type ContextClient } from "../testing/api-client";

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ TURN_TIMEOUT_MS: "100" }, []);
});
afterAll(async () => {
  await h?.close();
});

async function scopedContext(): Promise<{ api: ContextClient; contextId: string }> {
  const res = await request(h.app)
    .post("/api/v1/contexts")
    .set("Authorization", `Bearer ${ADMIN_KEY}`)
    .send({ name: "strict", config: { require_scope: true } });
  expect(res.status).toBe(201);
  return { api: contextClient(h.app, { contextId: res.body.context_id, apiKey: res.body.api_key }), contextId: res.body.context_id };
}

const fieldOf = (res: request.Response) => ({ status: res.status, field: res.body.errors?.[0]?.field });

test("every kind of write without a scope is 400 naming the field, and nothing is stored", async () => {
  const { api, contextId } = await scopedContext();
  const session = await api.session();
  const turn = await api.post(`/sessions/${session}/turns`, { role: "user", content: "I'm Alice." });
  const later = await api.post(`/sessions/${session}/turns`, { role: "user", content: "I'm Alice.", scope: [], wait: false });
  const batch = await api.post(`/sessions/${session}/turns/batch`, {
    turns: [
      { role: "user", content: "one", scope: ["org=acme"] },
      { role: "user", content: "two" },
    ],
  });
  const document = await api.post("/documents", { text: "Alice is the CTO." });
  const facts = await api.post("/facts", { attributes: [{ entity: "Alice", key: "role", value: "CTO", memory_category: "identity" }] });
  expect([turn, later, batch, document, facts].map(fieldOf)).toEqual([
    { status: 400, field: "body.scope" },
    { status: 400, field: "body.scope" },
    { status: 400, field: "body.turns.1.scope" },
    { status: 400, field: "body.scope" },
    { status: 400, field: "body.scope" },
  ]);
  expect(turn.body.detail).toMatch(/require_scope/);
  const db = h.api.db;
  const stored = await Promise.all([
    db.turn.count({ where: { contextId } }),
    db.document.count({ where: { contextId } }),
    db.factWrite.count({ where: { contextId } }),
  ]);
  expect(stored).toEqual([0, 0, 0]);
});

test("with a scope the same writes are taken", async () => {
  const { api } = await scopedContext();
  const session = await api.session();
  const scope = ["org=acme"];
  const answers = await Promise.all([
    api.post(`/sessions/${session}/turns`, { role: "user", content: "I'm Alice.", scope, wait: false }),
    api.post("/documents", { text: "Alice is the CTO.", scope }),
    api.post("/facts", { scope, attributes: [{ entity: "Alice", key: "role", value: "CTO", memory_category: "identity" }] }),
  ]);
  expect(answers.map((a) => a.status)).toEqual([202, 202, 201]);
});

test("a context without the rule takes unscoped writes; a config that is not the schema's is 400 naming the key", async () => {
  const api = contextClient(h.app, await createContext(h.app, "open"));
  const session = await api.session();
  expect((await api.post(`/sessions/${session}/turns`, { role: "user", content: "I'm Bob.", wait: false })).status).toBe(202);
  const bad = await request(h.app)
    .post("/api/v1/contexts")
    .set("Authorization", `Bearer ${ADMIN_KEY}`)
    .send({ name: "typo", config: { require_scope: "yes" } });
  expect(fieldOf(bad)).toEqual({ status: 400, field: "body.config.require_scope" });
});
