// POST /facts on real Postgres: direct writes go through validation, commit and truth
// maintenance, and then read like any extracted fact (profile, state, provenance).
import { startHarness, type Harness } from "../testing/harness";
import { contextClient, createContext, type ContextClient } from "../testing/api-client";

let h: Harness;
let api: ContextClient;
const SCOPE = ["org=acme", "user=carol"];
const CAROL_Q = "scope[org]=acme&scope[user]=carol";

beforeAll(async () => {
  h = await startHarness();
  api = contextClient(h.app, await createContext(h.app, "acme"));
});

afterAll(async () => {
  await h?.close();
});

const carolRole = (value: string) => ({ entity: "Carol", entity_type: "person", key: "role", value, memory_category: "identity" });

test("a written fact is committed in its scope and readable at once", async () => {
  const res = await api.post("/facts", { scope: SCOPE, attributes: [carolRole("CFO")] });
  expect(res.status).toBe(201);
  expect(res.body.committed.attribute_ids).toHaveLength(1);
  const profile = await api.get(`/profile?${CAROL_Q}`);
  const carol = profile.body.entities.find((e: { name: string }) => e.name === "Carol");
  expect(carol.attributes).toEqual([expect.objectContaining({ key: "role", value: "CFO", memory_category: "identity" })]);
  expect((await api.get("/profile?scope[org]=acme")).body.entities).toEqual([]);
});

test("a newer write supersedes the older value; provenance points into the write's own statement", async () => {
  const res = await api.post("/facts", {
    scope: SCOPE,
    attributes: [{ ...carolRole("COO"), evidence: { quote: "Carol told us she is COO now" } }],
  });
  expect(res.status).toBe(201);
  expect(res.body.truth_maintenance.superseded).toHaveLength(1);
  const state = await api.post("/state", { scope: SCOPE });
  expect(state.body.facts.map((f: { value: string }) => f.value)).toEqual(["COO"]);
  const id = res.body.committed.attribute_ids[0];
  const provenance = await api.get(`/facts/${id}/provenance?${CAROL_Q}`);
  expect(provenance.body).toMatchObject({
    source: { type: "fact_write", id: res.body.fact_write_id },
    span: { quote: "Carol told us she is COO now", text: "Carol told us she is COO now" },
    extraction: { stage: "direct" },
    trace_id: res.body.trace_id,
  });
  expect(provenance.body.work_items.map((w: { queue: string }) => w.queue)).toEqual(
    expect.arrayContaining(["validate_artifacts", "commit_artifacts", "truth_maintenance"]),
  );
});

test("an invalid memory_category is a 400 naming the field, and nothing is written", async () => {
  const before = await h.api.db.attribute.count();
  const res = await api.post("/facts", { scope: SCOPE, attributes: [{ ...carolRole("CTO"), memory_category: "gossip" }] });
  expect(res.status).toBe(400);
  expect(res.type).toBe("application/problem+json");
  expect(res.body.errors.map((e: { field: string }) => e.field)).toContain("body.attributes.0.memory_category");
  expect(await h.api.db.attribute.count()).toBe(before);
});

test("errors only the service can find (a blank name) name the field too", async () => {
  const res = await api.post("/facts", { scope: SCOPE, attributes: [{ ...carolRole("CTO"), entity: "   " }] });
  expect(res.status).toBe(400);
  expect(res.body.errors.map((e: { field: string }) => e.field)).toContain("body.attributes.0.entity");
});

test("an unknown stays open in /state until a fact resolves it; resolved ones appear only when asked", async () => {
  const unknown = { about: "Carol's office city", reason: "she mentioned two offices", entity: "Carol", key: "office" };
  expect((await api.post("/facts", { scope: SCOPE, uncertainties: [unknown] })).status).toBe(201);
  const open = await api.post("/state", { scope: SCOPE });
  expect(open.body.unknowns).toEqual([expect.objectContaining({ about: unknown.about, resolved: false })]);
  const office = { entity: "Carol", key: "office", value: "Berlin", memory_category: "context" };
  expect((await api.post("/facts", { scope: SCOPE, attributes: [office] })).status).toBe(201);
  expect((await api.post("/state", { scope: SCOPE })).body.unknowns).toEqual([]);
  const all = await api.post("/state", { scope: SCOPE, include_resolved: true });
  expect(all.body.unknowns).toEqual([expect.objectContaining({ about: unknown.about, resolved: true })]);
});
