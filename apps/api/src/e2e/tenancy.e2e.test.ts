// The tenant rule, checked over the route table itself so a new route is covered the
// day it is added: a key for context A gets 404 for context B's path on every route,
// and 404 for B's ids (sessions, documents, facts, entities, work items, keys) on
// every route that takes an id, even under A's own path.
import request from "supertest";
import { routeGroups } from "../app";
import { startHarness, ADMIN_KEY, type Harness } from "../testing/harness";
import { contextClient, createContext, type ContextHandle } from "../testing/api-client";

let h: Harness;
let a: ContextHandle;
let b: ContextHandle;
/** B's ids by the path parameter that takes them; every kind a fact id may name is tried. */
const idsOfB: Record<string, string[]> = {};

const BODIES: Record<string, object> = {
  "post /sessions/:sessionId/turns": { role: "user", content: "hello there", scope: ["org=b"] },
  "post /sessions/:sessionId/turns/batch": { turns: [{ role: "user", content: "hello again", scope: ["org=b"] }] },
  "post /work-items/:workItemId/retry": {},
  "post /work-items/:workItemId/cancel": {},
  "post /documents/:documentId/retract": { reason: "tenancy test" },
  "post /turns/:turnId/retract": { reason: "tenancy test" },
  "post /fact-writes/:factWriteId/retract": { reason: "tenancy test" },
  "post /reviews/:reviewId/approve": {},
  "post /reviews/:reviewId/reject": {},
  "post /context": { message: "Dana Initech haiku staplers", scope: ["org=b"] },
};

beforeAll(async () => {
  // B's webhook points at a loopback port nobody listens on: its deliveries fail and wait to be retried.
  h = await startHarness({ WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8" });
  a = await createContext(h.app, "a");
  // B holds for review what is said in scope review=yes, so it has reviews too.
  b = await createContext(h.app, "b", { review: { scope: { review: "yes" } } });
  const api = contextClient(h.app, b);
  const hook = await api.post("/webhooks", { url: "http://127.0.0.1:9/hook", events: ["turn.committed"] });
  expect(hook.status).toBe(201);
  idsOfB.webhookId = [hook.body.webhook_id];
  // An erasure of B's (of a turn said for it alone), for its receipt's id.
  const erased = await api.turn(await api.session(), "Initech's lobby is painted blue.", ["org=b"]);
  const erasure = await api.post("/erasures", { turn_ids: [erased.turn_id] });
  expect(erasure.status).toBe(200);
  idsOfB.erasureId = [erasure.body.erasure_id];
  const session = await api.session();
  const turn = await api.turn(session, "I'm Dana, CTO at Initech. Always respond in haiku.", ["org=b"]);
  const held = await api.turn(session, "I'm Erin, CFO at Initech.", ["org=b", "review=yes"]);
  expect(held.extraction.status).toBe("pending_review");
  const document = await api.post("/documents", { text: "Initech builds staplers.", scope: ["org=b"] });
  const db = h.api.db;
  const where = { contextId: b.contextId };
  idsOfB.sessionId = [session];
  idsOfB.documentId = [document.body.document_id];
  const batch = await api.post(`/sessions/${session}/turns/batch`, {
    turns: [{ role: "user", content: "Initech ships on Fridays.", scope: ["org=b"] }],
  });
  idsOfB.batchId = [batch.body.batch_id];
  idsOfB.turnId = (await db.turn.findMany({ where })).map((t) => t.id);
  const written = await api.post("/facts", {
    scope: ["org=b"],
    attributes: [{ entity: "Dana", key: "title", value: "CTO", memory_category: "identity" }],
  });
  expect(written.status).toBe(201);
  idsOfB.factWriteId = (await db.factWrite.findMany({ where })).map((f) => f.id);
  idsOfB.workItemId = (await db.workItem.findMany({ where, take: 1 })).map((w) => w.id);
  idsOfB.entityId = (await db.entity.findMany({ where })).map((e) => e.id);
  idsOfB.factId = [
    ...(await db.attribute.findMany({ where })).map((f) => f.id),
    ...(await db.relation.findMany({ where })).map((f) => f.id),
    ...(await db.instruction.findMany({ where })).map((f) => f.id),
    ...(await db.assertion.findMany({ where, take: 1 })).map((f) => f.id),
  ];
  expect(turn.extraction.status).toBe("committed");
  idsOfB.reviewId = (await db.review.findMany({ where })).map((r) => r.id);
  idsOfB.deliveryId = (await db.webhookDelivery.findMany({ where: { webhookId: idsOfB.webhookId[0] } })).map((d) => d.id);
  for (const [param, ids] of Object.entries(idsOfB)) expect({ param, found: ids.length > 0 }).toEqual({ param, found: true });
});

afterAll(async () => {
  await h?.close();
});

function scopedRoutes() {
  return routeGroups(h.api).find((g) => g.auth === "api_key")!.routes;
}

/** Fills each :param of a route path, taking the n-th id of B for it (the last one when there are fewer). */
function fill(path: string, n: number): string {
  return path.replace(/:([A-Za-z]+)/g, (_m, param: string) => {
    const ids = idsOfB[param];
    if (!ids) throw new Error(`no id of context B for :${param}; add one to this test`);
    return ids[Math.min(n, ids.length - 1)]!;
  });
}

function call(method: string, url: string, apiKey: string, body: object) {
  const req =
    method === "get" ? request(h.app).get(url) : method === "delete" ? request(h.app).delete(url) : request(h.app).post(url).send(body);
  return req.set("API-KEY", apiKey);
}

test("context A's key answers 404 for context B's path on every route", async () => {
  for (const route of scopedRoutes()) {
    const url = `/api/v1/${b.contextId}${fill(route.path, 0)}?scope[org]=b`;
    const res = await call(route.method, url, a.apiKey, BODIES[`${route.method} ${route.path}`] ?? {});
    expect({ route: `${route.method} ${route.path}`, status: res.status }).toEqual({ route: `${route.method} ${route.path}`, status: 404 });
  }
});

test("under A's own path, every id of B answers 404 on every route that takes an id", async () => {
  const withIds = scopedRoutes().filter((r) => r.path.includes(":"));
  expect(withIds.length).toBeGreaterThanOrEqual(6);
  for (const route of withIds) {
    const variants = Math.max(...[...route.path.matchAll(/:([A-Za-z]+)/g)].map(([, p]) => idsOfB[p!]?.length ?? 1));
    for (let n = 0; n < variants; n++) {
      const url = `/api/v1/${a.contextId}${fill(route.path, n)}?scope[org]=b`;
      const res = await call(route.method, url, a.apiKey, BODIES[`${route.method} ${route.path}`] ?? {});
      expect({ url: `${route.method} ${url}`, status: res.status }).toEqual({ url: `${route.method} ${url}`, status: 404 });
    }
  }
});

test("control: the same ids under B's path with B's key are found, so the 404s above are the tenant rule", async () => {
  // Deletes last: the routes after one would not find what it deleted.
  const withIds = scopedRoutes().filter((r) => r.path.includes(":"));
  for (const route of [...withIds.filter((r) => r.method !== "delete"), ...withIds.filter((r) => r.method === "delete")]) {
    const url = `/api/v1/${b.contextId}${fill(route.path, 0)}?scope[org]=b`;
    const res = await call(route.method, url, b.apiKey, BODIES[`${route.method} ${route.path}`] ?? {});
    expect({ route: `${route.method} ${route.path}`, found: res.status !== 404 }).toEqual({
      route: `${route.method} ${route.path}`,
      found: true,
    });
  }
});

test("lists and searches under A's path never include B's rows", async () => {
  const api = contextClient(h.app, a);
  const query = await api.post("/query", { query: "Dana Initech haiku staplers", scope: ["org=b"] });
  expect(query.body.results).toEqual([]);
  const packed = await api.post("/context", { message: "Dana Initech haiku staplers", scope: ["org=b"], max_tokens: 16_000 });
  expect(packed.body).toEqual({ text: "", tokens: 0, sections: { instructions: [], facts: [], uncertainties: [], excerpts: [] } });
  // Control: B's own key reads the same message back, so the empty answer above is the tenant rule.
  const own = await contextClient(h.app, b).post("/context", { message: "Dana Initech haiku staplers", scope: ["org=b"] });
  expect(own.body.text).toContain("Initech");
  expect((await api.get("/profile?scope[org]=b")).body.entities).toEqual([]);
  expect((await api.post("/state", { scope: ["org=b"] })).body.facts).toEqual([]);
  expect((await api.get("/work-items")).body.work_items).toEqual([]);
});

test("the admin API cannot reach one context's keys through another's path", async () => {
  const keyOfB = (await h.api.db.apiKey.findFirstOrThrow({ where: { contextId: b.contextId } })).id;
  const admin = (req: request.Test) => req.set("Authorization", `Bearer ${ADMIN_KEY}`);
  expect((await admin(request(h.app).delete(`/api/v1/contexts/${a.contextId}/keys/${keyOfB}`))).status).toBe(404);
  expect((await admin(request(h.app).post(`/api/v1/contexts/${a.contextId}/keys/${keyOfB}/rotate`).send({}))).status).toBe(404);
  const listed = await admin(request(h.app).get(`/api/v1/contexts/${a.contextId}/keys`));
  expect(listed.body.keys.map((k: { key_id: string }) => k.key_id)).not.toContain(keyOfB);
});
