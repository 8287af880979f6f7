// Vector search end to end on real Postgres and Redis: the truth_maintenance worker
// embeds what each commit wrote through the real OpenAI SDK against the local
// wire-protocol server, and POST /query ranks those embeddings by recall_cosine() in
// Postgres and fuses them with full-text search. Pinned vectors make texts that share
// no word close, so only the vector retriever can find them.
import { FAKE_EMBEDDING_DIMENSIONS, startFakeLlmServer, waitFor, type FakeLlmServer } from "@recall/test-support";
import request from "supertest";
import { startHarness, type Harness } from "../testing/harness";
import { contextClient, createContext, type ContextClient } from "../testing/api-client";
import { scopeOf } from "@recall/memory";

const MODEL = "openai-compatible:embed-test";
const ALICE = ["org=acme", "user=alice"];
const BOB = ["org=acme", "user=bob"];
const ALICE_TURN = "I'm Alice, CTO at Acme.";
const BOB_TURN = "I'm Bob, engineer at Acme.";
const DOC = "The gearbox tolerances drift in winter.";

let h: Harness;
let llm: FakeLlmServer;
let api: ContextClient;
const ids: Record<string, string> = {};

/** A unit vector along `axis`, turned by `tilt` radians towards the next axis. */
function direction(axis: number, tilt = 0): number[] {
  const v = new Array<number>(FAKE_EMBEDDING_DIMENSIONS).fill(0);
  v[axis] = Math.cos(tilt);
  v[axis + 1] = Math.sin(tilt);
  return v;
}

const EMPTY_DIFF = { entities: [], attributes: [], relations: [], instructions: [], revocations: [], uncertainties: [] };
const CEO_DIFF = {
  ...EMPTY_DIFF,
  entities: [{ name: "Alice", type: "person", memory_category: "identity", aliases: [] }],
  attributes: [
    {
      entity: "Alice",
      key: "role",
      value: "CEO",
      memory_category: "identity",
      evidence: "I'm the CEO now",
      confidence: 0.9,
      significance: "high",
      valid_from: null,
      valid_to: null,
    },
  ],
};

beforeAll(async () => {
  llm = await startFakeLlmServer();
  h = await startHarness({
    RECALL_EMBEDDING_MODEL: MODEL,
    RECALL_FAST_MODEL: "openai-compatible:test-fast",
    OPENAI_BASE_URL: llm.openaiBaseUrl,
    LLM_TIMEOUT_MS: "5000",
  });
  api = contextClient(h.app, await createContext(h.app, "acme"));
  // Both introductions point the same way: only the scope rule tells them apart.
  llm.embeddings.pin(ALICE_TURN, direction(0));
  llm.embeddings.pin(BOB_TURN, direction(0));
  llm.embeddings.pin(DOC, direction(10));
  ids.aliceSession = await api.session();
  ids.alice = (await api.turn(ids.aliceSession, ALICE_TURN, ALICE)).turn_id;
  ids.bob = (await api.turn(await api.session(), BOB_TURN, BOB)).turn_id;
});

afterAll(async () => {
  await h?.close();
  await llm?.close();
});

const embeddingRequests = () => llm.requests.filter((r) => r.route === "embeddings");
const truthMaintenance = (subjectId: string) =>
  h.api.db.workItem.findFirstOrThrow({ where: { queue: "truth_maintenance", subjectId }, include: { attemptRecords: true } });

describe("writing embeddings", () => {
  test("a turn's content and its committed facts are embedded in one call, in the turn's scope, metered", async () => {
    const request = embeddingRequests().find((r) => (r.body.input as string[]).includes(ALICE_TURN))!;
    expect(request.body).toMatchObject({ model: "embed-test", input: [ALICE_TURN, expect.any(String), expect.any(String)] });
    expect((request.body.input as string[]).slice(1).sort()).toEqual(["Alice role: CTO", "Alice works_at Acme"]);

    const alice = await h.api.db.scopeSet.findFirstOrThrow({ where: { entries: { equals: ALICE } } });
    const rows = await h.api.db.embedding.findMany({ where: { scopeSetId: alice.id } });
    expect(rows.map((r) => r.ownerKind).sort()).toEqual(["fact", "fact", "turn"]);
    expect(rows.find((r) => r.ownerKind === "turn")).toMatchObject({
      ownerId: ids.alice,
      model: MODEL,
      dimensions: 64,
      vector: direction(0),
    });
    const words = (request.body.input as string[]).join(" ").match(/[\p{L}\p{N}]+/gu)!.length;
    expect((await truthMaintenance(ids.alice!)).tokensUsed).toBe(words);
  });

  test("a document's nodes are embedded with the document's scope", async () => {
    llm.script({ json: EMPTY_DIFF });
    const posted = await api.post("/documents", { text: DOC, scope: ["org=acme"] });
    expect(posted.status).toBe(202);
    ids.doc = posted.body.document_id;
    await waitFor(async () => ((await api.get(`/documents/${ids.doc}/status`)).body.state === "committed" ? true : undefined), {
      what: "document committed",
    });
    const [node] = await h.api.db.documentNode.findMany({ where: { documentId: ids.doc } });
    expect(node!.text).toBe(DOC);
    const row = await h.api.db.embedding.findFirstOrThrow({ where: { ownerKind: "document_node", ownerId: node!.id } });
    expect(row).toMatchObject({ model: MODEL, vector: direction(10) });
    expect(await scopeOf(h.api.db, row.scopeSetId)).toEqual(["org=acme"]);
  });

  test("a provider failure is retried like any other (class provider) without applying truth maintenance twice", async () => {
    llm.script({ json: CEO_DIFF });
    llm.embeddings.script({ status: 500 });
    const correction = await api.turn(ids.aliceSession!, "Actually I'm the CEO now.", ALICE);
    expect(correction.extraction.status).toBe("committed");

    // The answer comes once truth maintenance applied the turn; the embedding retry follows.
    const item = await waitFor(async () => {
      const row = await truthMaintenance(correction.turn_id);
      return row.status === "succeeded" ? row : undefined;
    });
    const attempts = [...item.attemptRecords].sort((a, b) => a.attempt - b.attempt).map((a) => [a.status, a.errorClass]);
    expect(attempts).toEqual([
      ["failed", "provider"],
      ["succeeded", null],
    ]);
    expect(item.payload).toHaveProperty("truth_maintained_at");
    expect(await h.api.db.supersession.count()).toBe(1);
    expect(await h.api.db.embedding.count({ where: { ownerKind: "turn", ownerId: correction.turn_id } })).toBe(1);
  });

  test("a direct write is truth-maintained in the request and embedded by a worker", async () => {
    const fact = { entity: "Alice", entity_type: "person", key: "hobby", value: "sailing", memory_category: "identity" };
    const res = await api.post("/facts", { scope: ALICE, attributes: [fact] });
    expect(res.status).toBe(201);
    const [attributeId] = res.body.committed.attribute_ids;
    const row = await waitFor(() => h.api.db.embedding.findFirst({ where: { ownerId: attributeId } }).then((r) => r ?? undefined), {
      what: "direct write embedded",
    });
    expect(row).toMatchObject({ ownerKind: "fact" });
    expect(await scopeOf(h.api.db, row.scopeSetId)).toEqual(ALICE);
    const item = await waitFor(async () => {
      const found = await truthMaintenance(res.body.fact_write_id);
      return found.status === "succeeded" ? found : undefined;
    });
    expect(item.attemptRecords.map((a) => a.status)).toEqual(["succeeded", "succeeded"]);
  });
});

/** pgvector's index where the test server has the extension, else the SQL scan. */
async function expectedIndex(): Promise<string> {
  const rows = await h.api.db.$queryRaw<unknown[]>`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`;
  return rows.length > 0 ? "pgvector_hnsw" : "sql_scan";
}

describe("GET /readyz with vectors", () => {
  test("names the index vector search uses", async () => {
    const res = await request(h.app).get("/readyz");
    const check = res.body.checks.find((c: { name: string }) => c.name === "vector_index");
    const index = await expectedIndex();
    expect(check).toEqual({
      name: "vector_index",
      ok: true,
      detail: expect.stringMatching(index === "sql_scan" ? /^sql scan: / : /^pgvector/),
    });
  });
});

describe("POST /query with vectors", () => {
  test("finds a turn by meaning: no word of the query is in it, its embedding is close", async () => {
    llm.embeddings.pin("who leads technology", direction(0, 0.2));
    const before = embeddingRequests().length;
    const res = await api.post("/query", { query: "who leads technology", scope: ALICE });
    expect(res.status).toBe(200);
    expect(res.body.results[0]).toMatchObject({ kind: "turn", text: ALICE_TURN, link: { turn_id: ids.alice }, ranks: { vector: 1 } });
    expect(res.body.results[0].raw_score).toBeCloseTo(Math.cos(0.2));
    expect(res.body.retrievers).toEqual([
      { name: "full_text", enabled: true, ran: true },
      { name: "vector", enabled: true, ran: true, model: MODEL, index: await expectedIndex() },
    ]);
    expect(
      embeddingRequests()
        .slice(before)
        .map((r) => r.body.input),
    ).toEqual([["who leads technology"]]);
  });

  test("vector results obey the scope rule: the same vector in another user's scope stays hidden", async () => {
    llm.embeddings.pin("who works here", direction(0, 0.1));
    const texts = async (scope: string[]) =>
      (await api.post("/query", { query: "who works here", scope })).body.results.map((r: { text: string }) => r.text);
    const alice = await texts(ALICE);
    const bob = await texts(BOB);
    expect(alice).toContain(ALICE_TURN);
    expect(alice).not.toContain(BOB_TURN);
    expect(bob).toContain(BOB_TURN);
    expect(bob.filter((t: string) => /Alice|CTO|CEO/.test(t))).toEqual([]);
    expect(await texts(["org=other"])).toEqual([]);
  });

  test("a document node is found by meaning, and fuses with full text when both agree", async () => {
    llm.embeddings.pin("cold weather machinery", direction(10, 0.3));
    llm.embeddings.pin("gearbox in the cold", direction(10, 0.1));
    const semantic = await api.post("/query", { query: "cold weather machinery", scope: BOB });
    expect(semantic.body.results[0]).toMatchObject({ kind: "document_node", link: { document_id: ids.doc }, ranks: { vector: 1 } });
    const both = await api.post("/query", { query: "gearbox in the cold", scope: BOB });
    expect(both.body.results[0]).toMatchObject({ kind: "document_node", ranks: { "full_text:document_node": 1, vector: 1 } });
  });

  test("a provider failure at query time answers from full text and says so", async () => {
    llm.embeddings.script({ status: 500 });
    const res = await api.post("/query", { query: "Alice CEO", scope: ALICE });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { text: string }) => r.text)).toContain("Alice role: CEO");
    for (const result of res.body.results) expect(Object.keys(result.ranks).every((k) => k.startsWith("full_text"))).toBe(true);
    expect(res.body.retrievers[1]).toEqual({
      name: "vector",
      enabled: true,
      ran: false,
      model: MODEL,
      reason: expect.stringMatching(/provider answered 500.*full-text only/),
    });
  });
});

test("a turn is answered committed once applied, even when embedding it fails for good", async () => {
  // Scripted answers are shared: let earlier background embeddings finish before scripting the failure.
  await waitFor(async () => (await h.api.db.workItem.count({ where: { status: { in: ["queued", "running", "failed"] } } })) === 0);
  llm.embeddings.script({ status: 401 });
  const turn = await api.turn(await api.session(), "I'm Carol, designer at Acme.", ["org=acme", "user=carol"]);
  expect(turn.extraction.status).toBe("committed");
  const item = await waitFor(async () => {
    const row = await truthMaintenance(turn.turn_id);
    return row.status === "dead" ? row : undefined;
  });
  expect(item.errorClass).toBe("provider");
  expect(await h.api.db.attribute.count({ where: { value: "designer" } })).toBe(1);
});
