// Look-alike names (issue #42) through the real service: five spellings of "Alice" that look the
// same (a zero-width joiner inside, a Greek Alpha, a Cyrillic es, "ecilA" under a right-to-left
// override) are one entity, and /context prints one "Alice: role" line, never five; names with no
// letter or digit are refused on POST /facts and on import, naming the field.
import request from "supertest";
import { startHarness, type Harness } from "../testing/harness";
import { contextClient, createContext, type ContextClient, type ContextHandle } from "../testing/api-client";

let h: Harness;
let api: ContextClient;
let ctx: ContextHandle;
const SCOPE = ["org=acme", "user=alice"];
const ALICES = ["Alice", "Al\u200dice", "\u0391lice", "Ali\u0441e", "\u202eecilA"];
const NAMELESS = ["!!!", "???", "\u200b"];

beforeAll(async () => {
  h = await startHarness();
  ctx = await createContext(h.app, "acme");
  api = contextClient(h.app, ctx);
});

afterAll(async () => {
  await h?.close();
});

const role = (entity: string) => ({ entity, entity_type: "person", key: "role", value: "CTO", memory_category: "identity" });

test("five look-alike spellings of Alice are one entity, shown once in /context", async () => {
  for (const name of ALICES) {
    const res = await api.post("/facts", { scope: SCOPE, attributes: [role(name)] });
    expect(res.status).toBe(201);
  }

  const entities = await h.api.db.entity.findMany({ where: { contextId: ctx.contextId } });
  expect(entities.map((e) => [e.name, e.identityKey])).toEqual([["Alice", "alice"]]);
  const context = await api.post("/context", { message: "CTO role", scope: SCOPE });
  expect(context.status).toBe(200);
  const roles = context.body.text.match(/^.*: role = .*$/gmu);
  expect(roles).toHaveLength(1);
  expect(roles[0]).toMatch(/^- Alice: role = CTO\b/);
});

test("a name written with a right-to-left override first is stored as it is shown, without the control", async () => {
  const res = await api.post("/facts", { scope: SCOPE, attributes: [{ ...role("\u202eboB"), value: "CFO" }] });
  expect(res.status).toBe(201);
  const bob = await h.api.db.entity.findFirstOrThrow({ where: { contextId: ctx.contextId, identityKey: "bob" } });
  expect(bob.name).toBe("Bob");
});

test.each(NAMELESS)("POST /facts refuses an entity named %j, naming each field, and writes nothing", async (name) => {
  const before = await h.api.db.entity.count({ where: { contextId: ctx.contextId } });
  const res = await api.post("/facts", {
    scope: SCOPE,
    entities: [{ name, type: "person", memory_category: "identity" }],
    attributes: [role(name)],
    relations: [{ subject: "Alice", verb: "knows", object: name, memory_category: "identity" }],
  });
  expect(res.status).toBe(400);
  expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(
    ["body.attributes.0.entity", "body.entities.0.name", "body.relations.0.object"].sort(),
  );
  expect(res.body.errors[0].message).toMatch(/must contain a letter or digit/);
  expect(await h.api.db.entity.count({ where: { contextId: ctx.contextId } })).toBe(before);
});

test.each(NAMELESS)("an import refuses an entity line named %j, naming the line and field", async (name) => {
  const source = crypto.randomUUID();
  const target = await createContext(h.app, "imported");
  const entity = { kind: "entity", id: crypto.randomUUID(), name, identity_key: "", type: "person", memory_category: "identity" };
  const body = [{ kind: "header", format: "recall.context-export", version: 1, context_id: source }, entity, { kind: "end" }]
    .map((l) => JSON.stringify(l))
    .join("\n");
  const res = await request(h.app)
    .post(`/api/v1/${target.contextId}/import`)
    .set("API-KEY", target.apiKey)
    .set("Content-Type", "application/x-ndjson")
    .send(body);
  expect([res.status, res.body.errors?.[0]?.field]).toEqual([400, "line 2.name"]);
  expect(await h.api.db.entity.count({ where: { contextId: target.contextId } })).toBe(0);
});
