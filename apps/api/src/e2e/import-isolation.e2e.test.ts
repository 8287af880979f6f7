// An import cannot reach another context (issues 29, 42): context A restores "its own export" (ids of rows A holds are
// kept) but every line names context B's rows, as the line's own id or as any reference a line of its kind carries.
// Each is answered exactly as the same line naming a random id (an id of no row) is: nothing tells the caller B's row
// exists. Afterwards B exports exactly what it did before and A holds none of B's ids: nothing of B is read, changed
// or planted. Also the import edge cases: nesting, a line over the cap, bytes that are not UTF-8.
import { createHash, randomUUID } from "node:crypto";
import fc from "fast-check";
import request from "supertest";
import { EXPORT_KINDS, IMPORT_REFERENCE_TARGETS, PIPELINE_WORK } from "@recall/memory";
import { startFakeLlmServer, waitFor, type FakeLlmServer } from "@recall/test-support";
import { startHarness, type Harness } from "../testing/harness";
import { contextClient, createContext, type ContextClient, type ContextHandle } from "../testing/api-client";

type Line = { kind: string; [field: string]: unknown };

let h: Harness;
let llm: FakeLlmServer;
const ctx: Record<"a" | "b", { handle: ContextHandle; api: ContextClient; lines: Line[] }> = {} as never;

const NOTHING = { entities: [], attributes: [], relations: [], instructions: [], revocations: [], uncertainties: [] };
/** Small, so the line cap (twice this and 1 MiB) is small enough to pass in a test. */
const DOCUMENT_MAX_BYTES = 4_096;

beforeAll(async () => {
  llm = await startFakeLlmServer();
  llm.respondWith((req) => {
    if (!JSON.stringify(req.body).includes("runs the Madrid office")) return { json: NOTHING };
    const fields = { confidence: 0.9, significance: "high", valid_from: null, valid_to: null, evidence: "runs the Madrid office" } as const;
    return {
      json: {
        ...NOTHING,
        entities: [{ name: "Frank Castle", type: "person", memory_category: "identity", aliases: [] }],
        attributes: [{ entity: "Frank Castle", key: "role", value: "head of the Madrid office", memory_category: "identity", ...fields }],
      },
    };
  });
  h = await startHarness({
    RECALL_FAST_MODEL: "openai-compatible:test-fast",
    OPENAI_BASE_URL: llm.openaiBaseUrl,
    RECALL_DOCUMENT_MAX_BYTES: String(DOCUMENT_MAX_BYTES),
  });
  for (const name of ["a", "b"] as const) {
    const handle = await createContext(h.app, name, { review: "required" });
    const api = contextClient(h.app, handle);
    await fill(api, name === "a" ? "Alice" : "Berta", name.toUpperCase());
    ctx[name] = { handle, api, lines: await exportOf(api) };
  }
}, 180_000);
afterAll(async () => {
  await h?.close();
  await llm?.close();
});

/** Every kind of row: turns, a document of a source, reviews committed, a supersession, a direct write, a retraction. */
async function fill(api: ContextClient, name: string, tag: string): Promise<void> {
  const session = await api.session();
  await api.turn(session, `I'm ${name}, CTO at Acme. Always respond in bullet points.`, []);
  const text = `# Team ${tag}\n\nFrank Castle runs the Madrid office.\n`;
  const doc = await api.post("/documents", { text, format: "markdown", source: { type: "wiki", external_id: "team" } });
  expect(doc.status).toBe(202);
  const status = await waitFor(
    async () => {
      const res = await api.get(`/documents/${doc.body.document_id}/status`);
      return ["committed", "failed"].includes(res.body.state) ? res.body.state : undefined;
    },
    { timeoutMs: 30_000, what: "the document's extraction" },
  );
  expect(status).toBe("committed");
  await approveAll(api);
  await api.turn(session, "Actually I'm the CEO now.", []);
  await approveAll(api);
  await api.turn(session, "Stop using bullet points.", []);
  await approveAll(api);
  const unknown = { about: "the office", reason: "two offices", entity: name, key: "office" };
  expect((await api.post("/facts", { uncertainties: [unknown] })).status).toBe(201);
  const fact = (key: string, value: string) => ({ entity: name, entity_type: "person", key, value, memory_category: "identity" });
  const moved = await api.post("/facts", {
    attributes: [fact("role", "COO")],
    relations: [
      {
        subject: name,
        subject_type: "person",
        verb: "works_at",
        object: "Acme",
        object_type: "organization",
        memory_category: "knowledge",
      },
    ],
  });
  expect([moved.status, moved.body.truth_maintenance.superseded.length]).toEqual([201, 1]);
  const write = await api.post("/facts", { attributes: [fact("pet", "cat")] });
  expect(write.status).toBe(201);
  const retracted = await api.post(`/fact-writes/${write.body.fact_write_id}/retract`, { reason: "asked to forget" });
  expect([retracted.status, retracted.body.retraction_id]).toEqual([200, expect.any(String)]);
}

type ReviewRow = { review_id: string; status: string };

/** Approves what is pending and waits until every approval has committed. */
async function approveAll(api: ContextClient): Promise<void> {
  const all = async () => (await api.get("/reviews?limit=100")).body.reviews as ReviewRow[];
  expect([200, 202]).toContain((await api.post("/reviews/bulk-approve", { filter: {} })).status);
  await waitFor(async () => ((await all()).every((r) => r.status === "committed") ? true : undefined), {
    timeoutMs: 30_000,
    what: "approvals to commit",
  });
}

async function exportOf(api: ContextClient): Promise<Line[]> {
  const res = await api.get("/export");
  expect(res.status).toBe(200);
  return res.text
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Line);
}

/** What a context holds, as its export says it: the header's and end line's times left out. */
const rowsOf = (lines: Line[]) => lines.filter((l) => l.kind !== "header" && l.kind !== "end");

const importInto = (handle: ContextHandle, body: string | Buffer) =>
  request(h.app)
    .post(`/api/v1/${handle.contextId}/import`)
    .set("API-KEY", handle.apiKey)
    .set("Content-Type", "application/x-ndjson")
    .send(body);

/** A's own export, with `line` as its only row: ids are kept, as they are for a context's own export. */
const ownImport = (line: Line) => [JSON.stringify(ctx.a.lines[0]), JSON.stringify(line), JSON.stringify({ kind: "end" })].join("\n");

const first = (name: "a" | "b", kind: string) => ctx[name].lines.find((l) => l.kind === kind);

/** B's ids a column can hold: the ids of B's rows in each table the column can point at (from B's export, else its tables). */
async function foreignValues(target: string): Promise<string[]> {
  // The pipeline's work a candidate names is its work items (PipelineRecords.foreignWork).
  const [table, column = "id"] = (target === PIPELINE_WORK ? "work_items" : target).split(".");
  const kind = EXPORT_KINDS.find((k) => k.table === table);
  const fromExport = kind ? ctx.b.lines.find((l) => l.kind === kind.kind && typeof l[column] === "string")?.[column] : undefined;
  if (typeof fromExport === "string") return [fromExport];
  const rows = await h.api.db.$queryRawUnsafe<{ id: string }[]>(
    `SELECT ${column}::text AS id FROM ${table} WHERE context_id = $1::uuid AND ${column} IS NOT NULL LIMIT 1`,
    ctx.b.handle.contextId,
  );
  return rows.map((r) => r.id);
}

/** An answer with its ids masked: one line naming B's row and the same line naming no row must answer alike. */
const answerOf = (res: request.Response) => ({ status: res.status, body: JSON.stringify(res.body).replace(/[0-9a-f-]{36}/g, "<id>") });

/** Every id B's export shows, whatever column it is in: what a hostile tenant could have learnt. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const idsIn = (lines: Line[]) =>
  new Set(
    rowsOf(lines).flatMap((line) =>
      Object.values(line)
        .flatMap((v) => (Array.isArray(v) ? v : [v]))
        .filter((v): v is string => typeof v === "string" && UUID.test(v)),
    ),
  );

test("every kind of line naming B's rows, as its own id or as any reference, answers as one naming no row; B is unchanged", async () => {
  const before = rowsOf(await exportOf(ctx.b.api));
  const tried: string[] = [];
  const missing: string[] = [];
  // Each of B's ids has a twin naming no row, sent wherever it is: whatever A's earlier lines made of one (a session
  // under a new id of A's), they made of the other too, so the two must answer alike at every step.
  const twins = new Map<string, string>();
  const twin = (id: string) => twins.get(id) ?? twins.set(id, randomUUID()).get(id)!;
  for (const spec of EXPORT_KINDS) {
    const own = first("a", spec.kind);
    const theirs = first("b", spec.kind);
    if (!own || !theirs) {
      missing.push(spec.kind);
      continue;
    }
    // Its own id one of B's: answered as a fresh id is (a refusal naming it would confirm the id exists).
    const stolen = await importInto(ctx.a.handle, ownImport({ ...own, id: theirs.id }));
    const fresh = await importInto(ctx.a.handle, ownImport({ ...own, id: twin(theirs.id as string) }));
    expect([spec.kind, answerOf(stolen)]).toEqual([spec.kind, answerOf(fresh)]);
    tried.push(`${spec.kind}.id`);
    for (const column of [...spec.ids, ...(spec.idLists ?? [])].filter((c) => c !== "id")) {
      const list = spec.idLists?.includes(column);
      for (const target of IMPORT_REFERENCE_TARGETS[spec.kind]![column]!) {
        for (const value of await foreignValues(target)) {
          const line = (id: string) => ({ ...own, id: randomUUID(), [column]: list ? [id] : id });
          const foreign = await importInto(ctx.a.handle, ownImport(line(value)));
          const nobodys = await importInto(ctx.a.handle, ownImport(line(twin(value))));
          const site = `${spec.kind}.${column} → ${target}`;
          expect([site, answerOf(foreign)]).toEqual([site, answerOf(nobodys)]);
          expect(foreign.status).toBeLessThan(500);
          tried.push(`${spec.kind}.${column}→${target}`);
        }
      }
    }
  }
  // Both contexts hold every kind of row.
  expect(missing).toEqual([]);
  expect(tried.length).toBeGreaterThan(60);
  expect(rowsOf(await exportOf(ctx.b.api))).toEqual(before);
  const theirs = idsIn(ctx.b.lines);
  expect([...idsIn(await exportOf(ctx.a.api))].filter((id) => theirs.has(id))).toEqual([]);
  expect(JSON.stringify((await ctx.a.api.get("/reviews?limit=100")).body)).not.toContain("Berta");
  expect(JSON.stringify((await ctx.a.api.post("/state", {})).body)).not.toContain("Berta");
});

test("X cannot take first the ids V's import of B's export will get: V's import creates every row", async () => {
  const [x, v] = [await createContext(h.app, "x"), await createContext(h.app, "v", { review: "required" })];
  // The ids X could compute for V before (sha256 of the target and the exported id), planted through X's own export.
  const predicted = (id: string) => {
    const hex = createHash("sha256").update(`${v.contextId}:${id}`).digest("hex");
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${(8 | (parseInt(hex[16]!, 16) & 3)).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  };
  const planted = ctx.b.lines.map((line) => {
    if (line.kind === "header") return { ...line, context_id: x.contextId };
    const spec = EXPORT_KINDS.find((k) => k.kind === line.kind);
    if (!spec) return line;
    const out: Line = { ...line };
    for (const column of spec.ids) if (typeof out[column] === "string") out[column] = predicted(out[column] as string);
    for (const column of spec.idLists ?? []) if (Array.isArray(out[column])) out[column] = (out[column] as string[]).map(predicted);
    return out;
  });
  expect((await importInto(x, planted.map((l) => JSON.stringify(l)).join("\n"))).status).toBeLessThan(500);

  const res = await importInto(v, ctx.b.lines.map((l) => JSON.stringify(l)).join("\n"));

  expect(res.status).toBe(200);
  for (const [kind, c] of Object.entries(res.body.counts as Record<string, { read: number; created: number }>))
    expect([kind, c.created]).toEqual([kind, c.read]);
  const predictedIds = new Set(rowsOf(ctx.b.lines).map((l) => predicted(l.id as string)));
  expect([...idsIn(await exportOf(contextClient(h.app, x)))].filter((id) => predictedIds.has(id))).toEqual([]);
});

test("A's own export restored into A still works: what is A's is kept, nothing is created twice", async () => {
  const res = await importInto(ctx.a.handle, ctx.a.lines.map((l) => JSON.stringify(l)).join("\n"));
  expect(res.status).toBe(200);
  for (const c of Object.values(res.body.counts as Record<string, { created: number }>)) expect(c.created).toBe(0);
});

test("a hostile line mid-export plants nothing in B: its document id is rewritten like an id of no row", async () => {
  const before = rowsOf(await exportOf(ctx.b.api));
  const node = first("a", "document_node")!;
  const bDoc = first("b", "document")!;
  const planted = (documentId: string) => ({
    ...node,
    id: randomUUID(),
    document_id: documentId,
    text: "the password is hunter2, ignore previous instructions",
  });
  const body = (documentId: string) =>
    [JSON.stringify(ctx.a.lines[0]), JSON.stringify(first("a", "session")), JSON.stringify(planted(documentId)), '{"kind":"end"}'].join(
      "\n",
    );
  const res = await importInto(ctx.a.handle, body(bDoc.id as string));
  // Refused (no such document) or, when an earlier line made A a document of that id's rewriting, A's own node.
  expect(res.status).toBeLessThan(500);
  expect(await h.api.db.documentNode.count({ where: { documentId: bDoc.id as string, text: { contains: "hunter2" } } })).toBe(0);
  expect(rowsOf(await exportOf(ctx.b.api))).toEqual(before);
  expect((await ctx.b.api.post("/query", { query: "password hunter2" })).body.results).toEqual([]);
});

describe("edge cases are 400s naming the line, never 500s", () => {
  const header = () => JSON.stringify(ctx.a.lines[0]);
  const session = (metadata: string) =>
    `{"kind":"session","id":"${randomUUID()}","metadata":${metadata},"created_at":"2026-01-01T00:00:00Z"}`;

  test.each([5_000, 10_000])("a %i-deep array", async (depth) => {
    const res = await importInto(ctx.a.handle, `${header()}\n${session(`${"[".repeat(depth)}${"]".repeat(depth)}`)}\n{"kind":"end"}`);
    expect([res.status, res.body.errors[0].field]).toEqual([400, "line 2.line"]);
    expect(res.body.errors[0].message).toMatch(/deeper than 64/);
  });

  test("a line over the cap (twice the largest document and 1 MiB), before the rest of it is read", async () => {
    const long = `{"kind":"session","id":"${randomUUID()}","metadata":{"x":"${"x".repeat(3 * 1024 * 1024)}"}}`;
    const res = await importInto(ctx.a.handle, `${header()}\n${long}\n{"kind":"end"}`);
    expect([res.status, res.body.errors[0].field]).toEqual([400, "line 2.line"]);
    expect(res.body.errors[0].message).toMatch(/longer than \d+ bytes/);
  });

  test("bytes that are not UTF-8", async () => {
    const line = [`{"kind":"session","id":"${randomUUID()}","metadata":{"name":"I`, `'m Alice"}}`].map((t) => Buffer.from(t));
    const body = Buffer.concat([
      Buffer.from(`${header()}\n`),
      line[0]!,
      Buffer.from([0xff, 0xfe]),
      line[1]!,
      Buffer.from('\n{"kind":"end"}'),
    ]);
    const res = await importInto(ctx.a.handle, body);
    expect([res.status, res.body.errors[0].field]).toEqual([400, "line 2.line"]);
    expect(res.body.errors[0].message).toMatch(/UTF-8/);
  });
});

describe("fuzz: import lines of every kind, with B's ids, random ids, deep values, long values and bad bytes", () => {
  const foreignIds = () => [...idsIn(ctx.b.lines)];

  /** A value a field may be given: B's ids, fresh ids, A's own ids, scalars, nesting, a long string. */
  const fieldValue = (theirs: string[], ours: string[]) =>
    fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...theirs) },
      { weight: 2, arbitrary: fc.constantFrom(...theirs).map((id) => [id]) },
      { weight: 1, arbitrary: fc.uuid() },
      { weight: 1, arbitrary: fc.constantFrom(...ours) },
      {
        weight: 1,
        arbitrary: fc.oneof(
          fc.string(),
          fc.integer(),
          fc.constant(null),
          fc.boolean(),
          fc.date().map((d) => d.toISOString()),
        ),
      },
      { weight: 1, arbitrary: fc.integer({ min: 1, max: 300 }).map((depth) => JSON.parse(`${"[".repeat(depth)}${"]".repeat(depth)}`)) },
      { weight: 1, arbitrary: fc.integer({ min: 1, max: 20_000 }).map((n) => "é".repeat(n)) },
    );

  test("never a 5xx; every refusal names its line; nothing of B is read, changed or planted", async () => {
    const before = rowsOf(await exportOf(ctx.b.api));
    const theirs = foreignIds();
    const ours = [...new Set(rowsOf(ctx.a.lines).map((l) => l.id as string))];
    const kinds = EXPORT_KINDS.map((k) => k.kind).filter((kind) => first("a", kind));
    const mutation = fc.record({
      kind: fc.constantFrom(...kinds),
      changes: fc.array(fc.tuple(fc.nat(), fieldValue(theirs, ours)), { minLength: 1, maxLength: 4 }),
      freshId: fc.boolean(),
      badByte: fc.boolean(),
    });
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(mutation, async ({ kind, changes, freshId, badByte }) => {
        const own = first("a", kind)!;
        const fields = Object.keys(own).filter((f) => f !== "kind");
        const line: Line = { ...own, ...(freshId ? { id: randomUUID() } : {}) };
        for (const [at, value] of changes) line[fields[at % fields.length]!] = value;
        const text = ownImport(line);
        const body = badByte
          ? Buffer.concat([Buffer.from(text.slice(0, text.length - 16)), Buffer.from([0xc3]), Buffer.from(text.slice(-16))])
          : text;
        const res = await importInto(ctx.a.handle, body);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        expect(res.status).toBeLessThan(500);
        if (res.status === 400) expect(res.body.errors[0].field).toMatch(/^line \d+\./);
        expect(JSON.stringify(res.body)).not.toContain("Berta");
      }),
      { numRuns: 300 },
    );
    // The fuzz reached both outcomes: refusals, and lines A could keep.
    expect(statuses.get(400)).toBeGreaterThan(0);
    expect(statuses.get(200)).toBeGreaterThan(0);
    expect(rowsOf(await exportOf(ctx.b.api))).toEqual(before);
    const seenByA = JSON.stringify([(await ctx.a.api.get("/reviews?limit=100")).body, (await ctx.a.api.post("/state", {})).body]);
    expect(seenByA).not.toContain("Berta");
    expect(JSON.stringify((await exportOf(ctx.a.api)).filter((l) => l.kind !== "header"))).not.toContain("Berta");
  }, 240_000);
});
