// Export and import through the real service (API, workers, Postgres, Redis, the model behind a local wire-protocol
// server): a context learned from heuristics-finished and model-extracted turns, a document, a supersession and a
// revoked instruction is exported and imported into a new context, which then answers the same profile, history
// and provenance (modulo ids) with provenance still quoting its source; a second import creates nothing; the 4xx
// cases; two imports at once; filters.
import request from "supertest";
import { startFakeLlmServer, waitFor, type FakeLlmServer } from "@recall/test-support";
import { startHarness, type Harness } from "../testing/harness";
import { contextClient, createContext, type ContextClient, type ContextHandle } from "../testing/api-client";

let h: Harness;
let llm: FakeLlmServer;
let source: ContextHandle;
let api: ContextClient;
let exported: string;

const NOTHING = { entities: [], attributes: [], relations: [], instructions: [], revocations: [], uncertainties: [] };
const fields = { memory_category: "knowledge", confidence: 0.9, significance: "high", valid_from: null, valid_to: null } as const;
const attribute = (name: string, type: string, key: string, value: string, evidence: string) => ({
  json: {
    ...NOTHING,
    entities: [{ name, type, memory_category: "identity", aliases: [] }],
    attributes: [{ entity: name, key, value, evidence, ...fields }],
  },
});
const ORG = "scope[org]=acme";

beforeAll(async () => {
  llm = await startFakeLlmServer();
  llm.respondWith((req) => {
    const sent = JSON.stringify(req.body);
    if (sent.includes("Bob runs the payments platform"))
      return attribute("Bob", "person", "role", "payments lead", "Bob runs the payments platform");
    if (sent.includes("Osprey is the ledger service"))
      return attribute("Osprey", "system", "purpose", "ledger", "Osprey is the ledger service");
    return { json: NOTHING };
  });
  h = await startHarness({ RECALL_FAST_MODEL: "openai-compatible:test-fast", OPENAI_BASE_URL: llm.openaiBaseUrl });
  source = await createContext(h.app, "source");
  api = contextClient(h.app, source);
  const session = await api.session();
  const acme = ["org=acme"];
  expect((await api.turn(session, "I'm Alice, CTO at Acme. Always respond in bullet points.", acme)).extraction.status).toBe("committed");
  await api.turn(session, "Actually I'm the CEO now.", acme);
  await api.turn(session, "Stop using bullet points.", acme);
  await api.turn(session, "Bob runs the payments platform at Acme.", acme);
  const document = await api.post("/documents", { text: "# Ledger\n\nOsprey is the ledger service of Acme." });
  expect(document.status).toBe(202);
  await waitFor(
    async () => ((await api.get(`/documents/${document.body.document_id}/status`)).body.state === "committed" ? true : undefined),
    {
      what: "the document to commit",
    },
  );
  const res = await api.get("/export");
  expect(res.status).toBe(200);
  expect(res.headers["content-type"]).toMatch(/^application\/x-ndjson/);
  exported = res.text;
}, 120_000);
afterAll(async () => {
  await h?.close();
  await llm?.close();
});

const lines = (text: string) =>
  text
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { kind: string; [k: string]: unknown });

const importInto = (ctx: ContextHandle, body: string) =>
  request(h.app).post(`/api/v1/${ctx.contextId}/import`).set("API-KEY", ctx.apiKey).set("Content-Type", "application/x-ndjson").send(body);

/** Ids differ between the contexts; everything else must not. Work items are the pipeline's, which an import does not replay. */
function modIds(value: unknown): unknown {
  if (typeof value === "string") return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value) ? "<id>" : value;
  if (Array.isArray(value)) return value.map(modIds);
  if (value && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => k !== "work_items")
        .map(([k, v]) => [k, modIds(v)]),
    );
  return value;
}

interface Snapshot {
  profile: unknown;
  history: unknown[];
  provenance: unknown[];
}

async function snapshot(client: ContextClient): Promise<Snapshot & { quotes: { quote: string; text: string }[] }> {
  const profile = (await client.get(`/profile?${ORG}`)).body;
  const history = [];
  const provenance = [];
  const quotes = [];
  for (const entity of profile.entities as { id: string; attributes: { id: string }[] }[]) {
    const { values, ...rest } = (await client.get(`/entities/${entity.id}/history?${ORG}`)).body;
    // Values of one valid_from are ordered by id, which an import changes: compared as a set.
    history.push({ ...rest, values: (values as unknown[]).map((v) => JSON.stringify(modIds(v))).sort() });
    for (const a of entity.attributes) {
      const p = (await client.get(`/facts/${a.id}/provenance?${ORG}`)).body;
      provenance.push(p);
      quotes.push({ quote: p.span.quote, text: p.span.text });
    }
  }
  for (const i of (await client.get(`/instructions?${ORG}&include_revoked=true`)).body.instructions ?? []) {
    provenance.push((await client.get(`/facts/${i.id}/provenance?${ORG}`)).body);
  }
  return { profile, history, provenance, quotes };
}

test("the export is a header, every kind of row, and an end line whose counts match", () => {
  const all = lines(exported);
  expect(all[0]).toMatchObject({ kind: "header", format: "recall.context-export", version: 1, context_id: source.contextId });
  const end = all[all.length - 1]!;
  expect(end.kind).toBe("end");
  const kinds = new Set(all.map((l) => l.kind));
  for (const kind of [
    "session",
    "turn",
    "document",
    "document_node",
    "candidate",
    "entity",
    "assertion",
    "attribute",
    "supersession",
    "instruction",
  ])
    expect(kinds).toContain(kind);
  const counts = end.counts as Record<string, number>;
  for (const [kind, n] of Object.entries(counts)) expect(all.filter((l) => l.kind === kind)).toHaveLength(n);
  const revoked = all.find((l) => l.kind === "instruction" && l.revoked_by);
  expect(revoked).toMatchObject({ active: false });
  // The model-extracted turn's assertion keeps its stage and model (the document's are read by the model too).
  const model = all.find((l) => l.kind === "assertion" && l.quote === "Bob runs the payments platform");
  expect(model).toMatchObject({ stage: "fast", model: expect.stringContaining("test-fast") });
});

test("imported into a new context it answers the same profile, history and provenance, and a second import creates nothing", async () => {
  const target = await createContext(h.app, "target");
  const client = contextClient(h.app, target);
  const first = await importInto(target, exported);
  expect(first.status).toBe(200);
  expect(first.body).toMatchObject({ source_context_id: source.contextId });
  expect(first.body.counts.attribute).toEqual({ read: expect.any(Number), created: first.body.counts.attribute.read });

  const before = await snapshot(api);
  const after = await snapshot(client);
  expect(modIds(after)).toEqual(modIds(before));
  expect(after.provenance.length).toBeGreaterThanOrEqual(4);
  for (const q of after.quotes) expect(q.text).toBe(q.quote);
  // Ids are new: nothing of the source's is named in the target.
  expect(JSON.stringify(after.profile)).not.toContain(JSON.stringify(before.profile).match(/[0-9a-f-]{36}/)![0]);

  const again = await importInto(target, exported);
  expect(again.status).toBe(200);
  for (const c of Object.values(again.body.counts as Record<string, { created: number }>)) expect(c.created).toBe(0);
  const rows = async (ctx: string) => [
    await h.api.db.attribute.count({ where: { contextId: ctx } }),
    await h.api.db.turn.count({ where: { contextId: ctx } }),
  ];
  expect(await rows(target.contextId)).toEqual(await rows(source.contextId));
  // Exporting the import gives the same lines, ids apart (lines of a kind come in id order, so as a set).
  const asSet = (text: string) =>
    lines(text)
      .slice(1)
      .map((l) => JSON.stringify(modIds(l)))
      .sort();
  expect(asSet((await client.get("/export")).text)).toEqual(asSet(exported));
}, 60_000);

test("two imports of one export at once create every row once", async () => {
  const target = await createContext(h.app, "race");
  const [a, b] = await Promise.all([importInto(target, exported), importInto(target, exported)]);
  expect([a.status, b.status]).toEqual([200, 200]);
  const created = (k: string) => a.body.counts[k].created + b.body.counts[k].created;
  expect(created("attribute")).toBe(a.body.counts.attribute.read);
  expect(await h.api.db.assertion.count({ where: { contextId: target.contextId } })).toBe(a.body.counts.assertion.read);
});

test("an import that stopped part-way (a refused line) finishes when the whole export is imported again", async () => {
  const target = await createContext(h.app, "resume");
  const all = exported.trim().split("\n");
  const cut = all.findIndex((l) => (JSON.parse(l) as { kind: string }).kind === "attribute");
  const broken = [...all.slice(0, cut), '{"kind":"attribute","id":"nope"}', ...all.slice(cut + 1)].join("\n");
  const res = await importInto(target, broken);
  expect(res.status).toBe(400);
  expect(res.body.errors[0]).toEqual({ field: `line ${cut + 1}.id`, message: "must be a uuid or null" });
  expect(await h.api.db.turn.count({ where: { contextId: target.contextId } })).toBeGreaterThan(0);
  const rest = await importInto(target, exported);
  expect(rest.status).toBe(200);
  expect(rest.body.counts.turn.created).toBe(0);
  expect(modIds((await contextClient(h.app, target).get(`/profile?${ORG}`)).body)).toEqual(modIds((await api.get(`/profile?${ORG}`)).body));
});

test("into its own context an export restores nothing twice; into a context holding other memory it is 409", async () => {
  const own = await importInto(source, exported);
  expect(own.status).toBe(200);
  for (const c of Object.values(own.body.counts as Record<string, { created: number }>)) expect(c.created).toBe(0);
  const busy = await createContext(h.app, "busy");
  await contextClient(h.app, busy).turn(await contextClient(h.app, busy).session(), "Hello there.", []);
  const res = await importInto(busy, exported);
  expect(res.status).toBe(409);
  expect(res.body.errors[0].field).toBe("path.contextId");
});

test("bad lines, versions, fields and media types are 4xx naming the line and field", async () => {
  const target = await createContext(h.app, "hostile");
  const header = JSON.stringify({ kind: "header", format: "recall.context-export", version: 1, context_id: source.contextId });
  const cases: [string, string][] = [
    [JSON.stringify({ kind: "header", format: "recall.context-export", version: 99, context_id: source.contextId }), "line 1.version"],
    ['{"kind":"turn"}', "line 1.kind"],
    [`${header}\nnot json`, "line 2.line"],
    [`${header}\n{"kind":"gadget","id":"x"}`, "line 2.kind"],
    [`${header}\n{"kind":"session","id":"${source.contextId}","owner":"me"}`, "line 2.owner"],
    [`${header}\n{"kind":"turn","id":"${source.contextId}","session_id":"x"}`, "line 2.session_id"],
    [`${header}\n{"kind":"turn","id":"${source.contextId}"}\n{"kind":"session","id":"${source.contextId}"}`, "line 3.kind"],
    [header, "line 2.kind"],
    ["", "line 1.line"],
  ];
  for (const [body, field] of cases) {
    const res = await importInto(target, body);
    expect([res.status, res.body.errors?.[0]?.field]).toEqual([400, field]);
  }
  // A turn whose session is not in the export: the database refuses the batch, named by its lines.
  const orphan = `${header}\n{"kind":"turn","id":"${source.contextId}","session_id":"${source.contextId}","seq":1,"role":"user","content":"x","scope":[],"trace_id":"t","created_at":"2026-01-01T00:00:00Z"}\n{"kind":"end"}`;
  const res = await importInto(target, orphan);
  expect(res.status).toBe(400);
  expect(res.body.errors[0].field).toBe("line 2.turn");
  const json = await request(h.app).post(`/api/v1/${target.contextId}/import`).set("API-KEY", target.apiKey).send({ a: 1 });
  expect(json.status).toBe(415);
  expect((await contextClient(h.app, target).get("/export?since=yesterday")).body.errors[0].field).toBe("query.since");
});

test("filters: a scope sees only what a reader in it sees, a time range only rows of that time", async () => {
  const other = lines((await api.get("/export?scope[org]=other")).text);
  expect(other.filter((l) => l.kind === "turn" || l.kind === "session")).toEqual([]);
  expect(other.filter((l) => l.kind === "document")).toHaveLength(1);
  const future = lines((await api.get(`/export?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).text);
  expect(future.map((l) => l.kind)).toEqual(["header", "end"]);
  expect(future[0]!.filters).toMatchObject({ since: expect.any(String) });
});
