// The memory API end to end on real Postgres and Redis: turns go through the real
// pipeline (heuristic stage, no model configured), then profile, state, query,
// provenance, history and turn listing read them back under the scope rule.
import { startHarness, type Harness } from "../testing/harness";
import { contextClient, createContext, type ContextClient } from "../testing/api-client";

let h: Harness;
let api: ContextClient;
const ALICE = ["org=acme", "user=alice"];
const BOB = ["org=acme", "user=bob"];
const turns: Record<string, { turn_id: string; extraction: { status: string } }> = {};
const ALICE_Q = "scope[org]=acme&scope[user]=alice";

beforeAll(async () => {
  h = await startHarness();
  api = contextClient(h.app, await createContext(h.app, "acme"));
  const alice = await api.session();
  const bob = await api.session();
  turns.intro = await api.turn(alice, "I'm Alice, CTO at Acme. Always respond in bullet points.", ALICE);
  turns.org = await api.turn(alice, "Always answer in English.", ["org=acme"]);
  turns.correction = await api.turn(alice, "Actually I'm the CEO now.", ALICE);
  turns.opaque = await api.turn(
    alice,
    "The quarterly kraken migration reconciles ledgers across obscure subsystems, which is hard to summarise.",
    ALICE,
  );
  turns.bob = await api.turn(bob, "I'm Bob, engineer at Acme.", BOB);
});

afterAll(async () => {
  await h?.close();
});

interface ProfileEntity {
  id: string;
  name: string;
  attributes: { id: string; key: string; value: string }[];
  relations: { predicate: string; object: { name: string } }[];
}

const entity = (body: { entities: ProfileEntity[] }, name: string) => body.entities.find((e) => e.name === name);
const descriptions = (body: { instructions: { description: string }[] }) => body.instructions.map((i) => i.description).sort();

test("without DATABASE_REPLICA_URLS no answer carries a consistency token or says where a read ran", async () => {
  const session = await api.session();
  const write = await api.post(`/sessions/${session}/turns`, {
    role: "user",
    content: "I'm Carol, engineer at Acme.",
    scope: ["user=carol"],
  });
  const read = await api.get(`/profile?${ALICE_Q}`).set("Recall-Consistency", "0/1");
  expect([write.status, read.status]).toEqual([200, 200]);
  expect([write.headers["recall-consistency"], read.headers["recall-served-by"]]).toEqual([undefined, undefined]);
});

describe("GET /profile", () => {
  test("shows alice's current facts and every instruction her scope includes", async () => {
    const res = await api.get(`/profile?${ALICE_Q}`);
    expect(res.status).toBe(200);
    const alice = entity(res.body, "Alice");
    expect(alice?.attributes).toEqual([expect.objectContaining({ key: "role", value: "CEO" })]);
    expect(alice?.relations).toEqual([
      expect.objectContaining({ predicate: "works_at", object: expect.objectContaining({ name: "Acme" }) }),
    ]);
    expect(entity(res.body, "Bob")).toBeUndefined();
    expect(descriptions(res.body)).toEqual(["Always answer in English", "Always respond in bullet points"]);
  });

  test("another user of the same org sees the org's instruction and his own facts, not alice's", async () => {
    const res = await api.get("/profile?scope[org]=acme&scope[user]=bob");
    expect(descriptions(res.body)).toEqual(["Always answer in English"]);
    expect(entity(res.body, "Bob")?.attributes).toEqual([expect.objectContaining({ key: "role", value: "engineer" })]);
    expect(entity(res.body, "Alice")).toBeUndefined();
  });

  test("a reader with only the org scope sees the org's instruction and no user's facts; no scope sees nothing", async () => {
    const org = await api.get("/profile?scope[org]=acme");
    expect(descriptions(org.body)).toEqual(["Always answer in English"]);
    expect(org.body.entities.flatMap((e: ProfileEntity) => e.attributes)).toEqual([]);
    const none = await api.get("/profile");
    expect(none.body).toMatchObject({ entities: [], instructions: [] });
  });

  test("pages entities with a cursor and rejects a cursor it did not issue", async () => {
    const first = await api.get(`/profile?${ALICE_Q}&limit=1`);
    expect(first.body.entities).toHaveLength(1);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await api.get(`/profile?${ALICE_Q}&limit=1&cursor=${first.body.next_cursor}`);
    expect(second.body.entities).toHaveLength(1);
    expect(second.body.entities[0].id).not.toBe(first.body.entities[0].id);
    const bad = await api.get(`/profile?${ALICE_Q}&cursor=nonsense`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe("query.cursor");
  });
});

describe("POST /state", () => {
  const roles = (facts: { kind: string; key?: string; value?: string }[]) => facts.filter((f) => f.key === "role").map((f) => f.value);

  test("current facts carry the turn's scope; instructions and unknowns come along", async () => {
    const res = await api.post("/state", { scope: ALICE });
    expect(res.status).toBe(200);
    expect(roles(res.body.facts)).toEqual(["CEO"]);
    for (const fact of res.body.facts) expect(ALICE).toEqual(expect.arrayContaining(fact.scope));
    expect(res.body.instructions).toHaveLength(2);
    expect(res.body.unknowns).toEqual([]);
  });

  test("as_of reads valid time: before the correction alice was CTO", async () => {
    const listed = await api.get(`/sessions/${await sessionOf(turns.intro!.turn_id)}/turns?${ALICE_Q}`);
    const introAt = listed.body.turns.find((t: { turn_id: string }) => t.turn_id === turns.intro!.turn_id).created_at;
    const res = await api.post("/state", { scope: { org: "acme", user: "alice" }, as_of: introAt });
    expect(roles(res.body.facts)).toEqual(["CTO"]);
  });

  test("recorded_as_of reads system time: before the correction was recorded, CTO was still current", async () => {
    const correctionAt = (await h.api.db.turn.findUniqueOrThrow({ where: { id: turns.correction!.turn_id } })).createdAt;
    const res = await api.post("/state", { scope: ALICE, recorded_as_of: correctionAt.toISOString() });
    expect(roles(res.body.facts)).toEqual(["CTO"]);
  });

  test("invalid times and scopes name the field", async () => {
    const res = await api.post("/state", { scope: ["orgacme"], as_of: "yesterday" });
    expect(res.status).toBe(400);
    expect(res.type).toBe("application/problem+json");
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(["body.as_of", "body.scope.0"]);
  });
});

describe("POST /query", () => {
  test("finds the instruction and the turn that said it, each with a link", async () => {
    const res = await api.post("/query", { query: "bullet points", scope: ALICE });
    expect(res.status).toBe(200);
    const kinds = res.body.results.map((r: { kind: string }) => r.kind);
    expect(kinds).toEqual(expect.arrayContaining(["instruction", "turn"]));
    const turn = res.body.results.find((r: { kind: string }) => r.kind === "turn");
    expect(turn.link).toMatchObject({ turn_id: turns.intro!.turn_id, start_byte: 0 });
    expect(turn.score).toBeGreaterThan(0);
    expect(res.body.retrievers).toEqual([
      { name: "full_text", enabled: true, ran: true },
      { name: "vector", enabled: false, ran: false, reason: expect.stringMatching(/set RECALL_EMBEDDING_MODEL/) },
    ]);
  });

  test("without RECALL_EMBEDDING_MODEL nothing is embedded and the vector retriever reports itself off", async () => {
    expect(await h.api.db.embedding.count()).toBe(0);
    const res = await api.post("/query", { query: "Alice", scope: ALICE });
    expect(res.body.retrievers[1]).toMatchObject({ name: "vector", enabled: false, ran: false });
    expect(res.body.results.every((r: { ranks: Record<string, number> }) => !("vector" in r.ranks))).toBe(true);
  });

  test("finds the text of a turn that awaits a model (no provider here)", async () => {
    expect(turns.opaque!.extraction.status).toBe("awaiting_model");
    const res = await api.post("/query", { query: "kraken ledgers", scope: ALICE });
    expect(res.body.results[0]).toMatchObject({ kind: "turn", link: { turn_id: turns.opaque!.turn_id } });
  });

  test("finds facts by entity name and value, linked to their evidence span", async () => {
    const res = await api.post("/query", { query: "Alice CEO", scope: ALICE, kinds: ["attribute"] });
    expect(res.body.results[0]).toMatchObject({ kind: "attribute", text: "Alice role: CEO", link: { turn_id: turns.correction!.turn_id } });
    expect(res.body.results[0].link.end_byte).toBeGreaterThan(res.body.results[0].link.start_byte);
  });

  test("a turn said twice in the same words is one result", async () => {
    const session = await api.session();
    const said: string[] = [];
    for (const content of [
      "The walrus inventory closes on Fridays.",
      "the walrus  inventory closes on Fridays. ",
      "Walrus inventory opens Mondays.",
    ])
      said.push((await api.turn(session, content, ["org=walrus"])).turn_id);
    const res = await api.post("/query", { query: "walrus inventory", scope: ["org=walrus"], kinds: ["turn"] });
    const found: string[] = res.body.results.map((r: { link: { turn_id: string } }) => r.link.turn_id);
    expect(found).toHaveLength(2);
    expect(found).toContain(said[2]);
    expect(found.filter((id) => id === said[0] || id === said[1])).toHaveLength(1);
  });

  test("never returns what the reader's scope may not see", async () => {
    const res = await api.post("/query", { query: "bullet points kraken CEO", scope: BOB });
    expect(res.body.results).toEqual([]);
  });
});

describe("provenance and history", () => {
  test("a fact leads to its turn, the byte span of its quote, the stage and the turn's work items", async () => {
    const profile = await api.get(`/profile?${ALICE_Q}`);
    const role = entity(profile.body, "Alice")!.attributes[0]!;
    const res = await api.get(`/facts/${role.id}/provenance?${ALICE_Q}`);
    expect(res.status).toBe(200);
    expect(res.body.fact).toEqual({ kind: "attribute", id: role.id });
    expect(res.body.source).toMatchObject({ type: "turn", id: turns.correction!.turn_id });
    expect(res.body.span.text).toBe(res.body.span.quote);
    expect(res.body.extraction).toMatchObject({ stage: "heuristic", model: null });
    expect(res.body.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(res.body.work_items.map((w: { queue: string; status: string }) => w.status)).toEqual([
      "succeeded",
      "succeeded",
      "succeeded",
      "succeeded",
    ]);
    const hidden = await api.get(`/facts/${role.id}/provenance?scope[org]=acme&scope[user]=bob`);
    expect(hidden.status).toBe(404);
  });

  test("an instruction's provenance names its turn and quote", async () => {
    const profile = await api.get(`/profile?${ALICE_Q}`);
    const bullet = profile.body.instructions.find((i: { description: string }) => /bullet/.test(i.description));
    const res = await api.get(`/facts/${bullet.id}/provenance?${ALICE_Q}`);
    expect(res.body).toMatchObject({ fact: { kind: "instruction" }, source: { type: "turn", id: turns.intro!.turn_id } });
    expect(res.body.span.text).toBe(res.body.span.quote);
  });

  test("history lists both roles with validity and the supersession between them", async () => {
    const profile = await api.get(`/profile?${ALICE_Q}`);
    const alice = entity(profile.body, "Alice")!;
    const res = await api.get(`/entities/${alice.id}/history?${ALICE_Q}`);
    expect(res.status).toBe(200);
    const roles = res.body.values.filter((v: { key?: string }) => v.key === "role");
    expect(roles.map((r: { value: string; current: boolean }) => [r.value, r.current])).toEqual([
      ["CTO", false],
      ["CEO", true],
    ]);
    expect(roles[0].superseded_by).toBe(roles[1].id);
    expect(roles[0].valid_to).toBe(roles[1].valid_from);
    expect((await api.get(`/entities/${alice.id}/history?scope[org]=acme`)).status).toBe(404);
  });
});

describe("GET /sessions/{id}/turns", () => {
  test("pages turns in order, showing only those the reader's scope may see", async () => {
    const session = await sessionOf(turns.intro!.turn_id);
    const first = await api.get(`/sessions/${session}/turns?${ALICE_Q}&limit=2`);
    expect(first.body.turns.map((t: { seq: number }) => t.seq)).toEqual([1, 2]);
    const rest = await api.get(`/sessions/${session}/turns?${ALICE_Q}&limit=2&cursor=${first.body.next_cursor}`);
    expect(rest.body.turns.map((t: { seq: number }) => t.seq)).toEqual([3, 4]);
    expect(rest.body.next_cursor).toBeNull();
    const org = await api.get(`/sessions/${session}/turns?scope[org]=acme`);
    expect(org.body.turns.map((t: { content: string }) => t.content)).toEqual(["Always answer in English."]);
  });

  test("a turn or a document written with its scope as an object is stored under the same list as a reader's", async () => {
    const session = await api.session();
    const turn = await api.post(`/sessions/${session}/turns`, { role: "user", content: "I'm Dana.", scope: { user: "dana", org: "acme" } });
    const document = await api.post("/documents", { text: "Dana runs the night shift.", scope: { org: "acme", user: "dana" } });
    const bad = await api.post(`/sessions/${session}/turns`, { role: "user", content: "x", scope: { "bad key": "v" } });
    expect([turn.status, document.status, bad.status]).toEqual([200, 202, 400]);
    const listed = await api.get(`/sessions/${session}/turns?scope[org]=acme&scope[user]=dana`);
    expect(listed.body.turns.map((t: { scope: string[] }) => t.scope)).toEqual([["org=acme", "user=dana"]]);
    const stored = await h.api.db.document.findUniqueOrThrow({ where: { id: document.body.document_id } });
    expect((stored.metadata as { scope?: string[] }).scope).toEqual(["org=acme", "user=dana"]);
  });
});

async function sessionOf(turnId: string): Promise<string> {
  return (await h.api.db.turn.findUniqueOrThrow({ where: { id: turnId } })).sessionId;
}

test("GET /work-items pages newest first with a cursor", async () => {
  const first = await api.get("/work-items?limit=3");
  expect(first.body.work_items).toHaveLength(3);
  const second = await api.get(`/work-items?limit=3&cursor=${first.body.next_cursor}`);
  const times = [...first.body.work_items, ...second.body.work_items].map((w: { created_at: string }) => w.created_at);
  expect(times).toEqual([...times].sort().reverse());
  const ids = new Set([...first.body.work_items, ...second.body.work_items].map((w: { work_item_id: string }) => w.work_item_id));
  expect(ids.size).toBe(6);
  // With no provider a turn the rules cannot finish awaits a model: listed by that status, never as dead.
  const awaiting = await api.get("/work-items?status=awaiting_model");
  expect(awaiting.body.work_items.map((w: { subject_id: string }) => w.subject_id)).toContain(turns.opaque!.turn_id);
  const dead = await api.get("/work-items?status=dead");
  expect(dead.body.work_items.map((w: { subject_id: string }) => w.subject_id)).not.toContain(turns.opaque!.turn_id);
});
