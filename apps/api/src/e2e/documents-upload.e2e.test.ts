// Documents as files, through the real service: a Markdown spec uploaded as multipart, an
// HTML page and a multi-page PDF as raw bodies, split along their structure; provenance
// names the heading path or the page; a changed version of the same source retracts what it
// no longer states; the same bytes are stored once; bad uploads get 413/415. The model is
// the local wire-protocol server, answering one node after another.
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import request from "supertest";
import { buildPdf, startFakeLlmServer, waitFor, type FakeLlmServer } from "@recall/test-support";
import { ADMIN_KEY, startHarness, type Harness } from "../testing/harness";

let h: Harness;
let llm: FakeLlmServer;
let ctx: string;
let key: string;
const blobDir = mkdtempSync(join(tmpdir(), "recall-blobs-"));
const MAX_BYTES = 64 * 1024;

beforeAll(async () => {
  llm = await startFakeLlmServer();
  h = await startHarness({
    RECALL_FAST_MODEL: "openai-compatible:test-fast",
    OPENAI_BASE_URL: llm.openaiBaseUrl,
    // Every node goes to the (scripted) model, one answer per node in order.
    RECALL_HEURISTIC_CONFIDENCE: "1",
    RECALL_DOCUMENT_MAX_BYTES: String(MAX_BYTES),
    RECALL_BLOB_DIR: blobDir,
    PIPELINE_SKILL_BY_SOURCE_TYPE_JSON: JSON.stringify({ pdf: "extraction/conversation" }),
  });
  const res = await request(h.app).post("/api/v1/contexts").set("Authorization", `Bearer ${ADMIN_KEY}`).send({ name: "docs" });
  ({ context_id: ctx, api_key: key } = res.body);
});
afterAll(async () => {
  await h?.close();
  await llm?.close();
  rmSync(blobDir, { recursive: true, force: true });
});

const NOTHING = { entities: [], attributes: [], relations: [], instructions: [], revocations: [], uncertainties: [] };
const fields = { memory_category: "knowledge", confidence: 0.9, significance: "high", valid_from: null, valid_to: null } as const;
const entity = (name: string, type: string) => ({ name, type, memory_category: "knowledge", aliases: [] });
const relation = (subject: string, verb: string, object: string, evidence: string) => ({
  json: {
    ...NOTHING,
    entities: [entity(subject, "product"), entity(object, "product")],
    relations: [{ subject, verb, object, evidence, ...fields }],
  },
});
const role = (person: string, value: string, evidence: string) => ({
  json: { ...NOTHING, entities: [entity(person, "person")], attributes: [{ entity: person, key: "role", value, evidence, ...fields }] },
});

const spec = (store: string) => `# Recall

Recall keeps memory for agents.

## Architecture

### Storage

Recall stores memory in ${store}.

| table | holds |
|---|---|
| facts | attributes and relations |

## Operating

Recall depends on Redis for its queues.
`;

const api = (path: string) => `/api/v1/${ctx}${path}`;

async function committed(documentId: string) {
  return waitFor(
    async () => {
      const res = await request(h.app)
        .get(api(`/documents/${documentId}/status`))
        .set("API-KEY", key);
      return ["committed", "failed"].includes(res.body.state) ? res.body : undefined;
    },
    { what: `document ${documentId} committed`, timeoutMs: 60_000 },
  );
}

async function provenanceOf(factId: string) {
  const res = await request(h.app)
    .get(api(`/facts/${factId}/provenance`))
    .set("API-KEY", key);
  expect(res.status).toBe(200);
  return res.body;
}

async function liveRelation(verb: string, object: string) {
  const target = await h.api.db.entity.findFirst({ where: { contextId: ctx, name: object } });
  if (!target) return null;
  return h.api.db.relation.findFirst({ where: { contextId: ctx, predicate: verb, objectId: target.id, retractedAt: null, validTo: null } });
}

describe("a Markdown spec uploaded as a file, then a changed version of it", () => {
  let v1: string;

  test("nodes follow its sections, and a fact's provenance names the heading path", async () => {
    llm.script(
      { json: NOTHING },
      relation("Recall", "stores_in", "Postgres", "Recall stores memory in Postgres"),
      relation("Recall", "depends_on", "Redis", "Recall depends on Redis for its queues"),
    );
    const res = await request(h.app)
      .post(api("/documents"))
      .set("API-KEY", key)
      .field("source", "spec-1")
      .field("metadata", JSON.stringify({ team: "platform" }))
      .attach("file", Buffer.from(spec("Postgres")), "spec.md");
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ format: "markdown", duplicate: false, previous_version_id: null });
    v1 = res.body.document_id;
    expect((await committed(v1)).state).toBe("committed");

    const nodes = await h.api.db.documentNode.findMany({ where: { documentId: v1 }, orderBy: { ordinal: "asc" } });
    expect(nodes.map((n) => n.headingPath.join(" › "))).toEqual(["Recall", "Recall › Architecture › Storage", "Recall › Operating"]);
    expect(nodes[1]!.text).toContain("| facts | attributes and relations |");
    const doc = await h.api.db.document.findUniqueOrThrow({ where: { id: v1 } });
    expect(doc).toMatchObject({ text: spec("Postgres"), fileName: "spec.md", original: null, metadata: { team: "platform" } });

    const stored = await liveRelation("stores_in", "Postgres");
    const provenance = await provenanceOf(stored!.id);
    expect(provenance.source).toMatchObject({
      type: "document",
      id: v1,
      node: { section: "Recall › Architecture › Storage", heading_path: ["Recall", "Architecture", "Storage"], page: null },
      document: { format: "markdown", file_name: "spec.md" },
    });
    expect(provenance.span).toMatchObject({ quote: "Recall stores memory in Postgres", text: "Recall stores memory in Postgres" });
  });

  test("a new version of the same source retracts what only the old one said and keeps what it says again", async () => {
    llm.script(
      { json: NOTHING },
      relation("Recall", "stores_in", "SQLite", "Recall stores memory in SQLite"),
      relation("Recall", "depends_on", "Redis", "Recall depends on Redis for its queues"),
    );
    const res = await request(h.app)
      .post(api("/documents"))
      .set("API-KEY", key)
      .field("source", "spec-1")
      .attach("file", Buffer.from(spec("SQLite")), "spec.md");
    expect(res.status).toBe(202);
    expect(res.body.previous_version_id).toBe(v1);
    const v2 = res.body.document_id;
    expect((await committed(v2)).state).toBe("committed");

    expect(await liveRelation("stores_in", "Postgres")).toBeNull();
    expect(await liveRelation("stores_in", "SQLite")).not.toBeNull();
    const redis = await liveRelation("depends_on", "Redis");
    expect((await provenanceOf(redis!.id)).source).toMatchObject({ id: v2, node: { section: "Recall › Operating" } });

    const versions = await request(h.app)
      .get(api(`/documents/${v2}/versions`))
      .set("API-KEY", key);
    expect(versions.status).toBe(200);
    expect(versions.body.source).toMatchObject({ type: "document", external_id: "spec-1" });
    expect(versions.body.versions).toEqual([
      expect.objectContaining({ document_id: v1, version: 1, superseded_by: v2, current: false, retraction_id: expect.any(String) }),
      expect.objectContaining({
        document_id: v2,
        version: 2,
        previous_version_id: v1,
        superseded_by: null,
        current: true,
        retraction_id: null,
      }),
    ]);

    // The same bytes again, as a file or as a raw body: stored once, the answer names the stored version.
    const again = await request(h.app)
      .post(api("/documents"))
      .set("API-KEY", key)
      .field("source", "spec-1")
      .attach("file", Buffer.from(spec("SQLite")), "spec.md");
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ document_id: v2, duplicate: true, queued: false });
    const raw = await request(h.app).post(api("/documents")).set("API-KEY", key).set("Content-Type", "text/markdown").send(spec("SQLite"));
    expect(raw.body).toMatchObject({ document_id: v2, duplicate: true });
    expect(await h.api.db.document.count({ where: { contextId: ctx } })).toBe(2);
  });
});

test("the same bytes in another format are another document (read another way); in the same format, a duplicate", async () => {
  const text = "# Rollout\n\nThe rollout of the billing service starts on Monday.";
  const post = (format: string) =>
    request(h.app)
      .post(api("/documents"))
      .set("API-KEY", key)
      .send({ text, format, scope: ["team=billing"] });
  llm.script({ json: NOTHING }, { json: NOTHING });
  const markdown = await post("markdown");
  expect(markdown.body).toMatchObject({ format: "markdown", duplicate: false });
  await committed(markdown.body.document_id);
  const plain = await post("text");
  expect(plain.status).toBe(202);
  expect(plain.body).toMatchObject({ format: "text", duplicate: false });
  expect(plain.body.document_id).not.toBe(markdown.body.document_id);
  await committed(plain.body.document_id);
  for (const [format, first] of [
    ["markdown", markdown],
    ["text", plain],
  ] as const) {
    const again = await post(format);
    expect({ status: again.status, ...again.body }).toMatchObject({
      status: 200,
      document_id: first.body.document_id,
      format,
      duplicate: true,
    });
  }
});

test("an HTML page: the main content, split under its headings, the original kept with its hash", async () => {
  const html = `<!doctype html><html><head><title>Acme Handbook</title><script>track()</script></head><body>
    <nav><a href="/">Home</a> <a href="/careers">Careers</a></nav>
    <main><h1>Acme Handbook</h1>
    <h2>People</h2><p>Alice Chen is the CTO of Acme. She has led the platform group since 2021 and reports to the board every
    quarter about the storage roadmap, its costs and the hiring plan for the next year.</p>
    <h2>Offices</h2><p>Acme has offices in Berlin and in Lisbon, and most of the engineering team works from the Lisbon office.</p>
    </main><footer>Copyright Acme</footer></body></html>`;
  llm.script(role("Alice Chen", "CTO", "Alice Chen is the CTO of Acme"), { json: NOTHING });
  const res = await request(h.app).post(api("/documents")).set("API-KEY", key).set("Content-Type", "text/html; charset=utf-8").send(html);
  expect(res.status).toBe(202);
  expect(res.body.format).toBe("html");
  const id = res.body.document_id;
  expect((await committed(id)).state).toBe("committed");

  const doc = await h.api.db.document.findUniqueOrThrow({ where: { id }, include: { nodes: { orderBy: { ordinal: "asc" } } } });
  expect(doc.text).not.toMatch(/Careers|track\(\)|Copyright/);
  expect(doc.nodes.map((n) => n.headingPath.join(" › "))).toEqual(["Acme Handbook › People", "Acme Handbook › Offices"]);
  const hash = createHash("sha256").update(html).digest("hex");
  expect(doc).toMatchObject({ contentHash: hash, original: null, blobPath: join(hash.slice(0, 2), hash) });
  expect(readFileSync(join(blobDir, doc.blobPath!)).toString()).toBe(html);

  const attribute = await h.api.db.attribute.findFirstOrThrow({ where: { contextId: ctx, key: "role", value: "CTO" } });
  const provenance = await provenanceOf(attribute.id);
  expect(provenance.source.node).toMatchObject({ section: "Acme Handbook › People", page: null });
  expect(provenance.span.text).toBe("Alice Chen is the CTO of Acme");
});

test("a multi-page PDF named .txt is read as a PDF: nodes per page, provenance names the page, the skill routes by format", async () => {
  const pdf = buildPdf([
    ["Quarterly report of Acme, second quarter.", "", "Revenue grew in every region this quarter."],
    ["Leadership changes.", "", "Bob Stone is the CFO of Acme since April."],
  ]);
  llm.script({ json: NOTHING }, role("Bob Stone", "CFO", "Bob Stone is the CFO of Acme"));
  const res = await request(h.app)
    .post(api("/documents"))
    .set("API-KEY", key)
    .attach("file", pdf, { filename: "report.txt", contentType: "text/plain" });
  expect(res.status).toBe(202);
  expect(res.body.format).toBe("pdf");
  const status = await committed(res.body.document_id);
  expect(status.state).toBe("committed");
  expect(status.extraction_plan).toMatchObject({ skill: "extraction/conversation", skill_source: "source_type_map" });

  const nodes = await h.api.db.documentNode.findMany({ where: { documentId: res.body.document_id }, orderBy: { ordinal: "asc" } });
  expect(nodes.map((n) => n.page)).toEqual([1, 2]);
  const attribute = await h.api.db.attribute.findFirstOrThrow({ where: { contextId: ctx, key: "role", value: "CFO" } });
  const provenance = await provenanceOf(attribute.id);
  expect(provenance.source).toMatchObject({ node: { page: 2, section: null }, document: { format: "pdf", file_name: "report.txt" } });
  expect(provenance.span.text).toBe("Bob Stone is the CFO of Acme");
});

describe("bad uploads", () => {
  const post = () => request(h.app).post(api("/documents")).set("API-KEY", key);

  test("past the size limit: 413, as a file, a raw body or JSON text", async () => {
    const big = "Acme. ".repeat(MAX_BYTES / 4);
    for (const res of [
      await post().attach("file", Buffer.from(big), "big.md"),
      await post().set("Content-Type", "text/plain").send(big),
      await post().send({ text: big }),
    ]) {
      expect(res.status).toBe(413);
      expect(res.headers["content-type"]).toMatch(/application\/problem\+json/);
      expect(res.body.detail).toContain(`larger than ${MAX_BYTES} bytes`);
    }
  });

  test("an unsupported type, or bytes that are not what was declared: 415 naming the supported types", async () => {
    const png = await post()
      .set("Content-Type", "image/png")
      .send(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    expect(png.status).toBe(415);
    expect(png.body.detail).toMatch(/unsupported media type "image\/png".*text\/markdown, text\/x-markdown, text\/html.*application\/pdf/);
    expect(png.body.errors).toEqual([{ field: "header.content-type", message: 'unsupported media type "image/png"' }]);
    const fakePdf = await post().set("Content-Type", "application/pdf").send(Buffer.from("just text"));
    expect(fakePdf.status).toBe(415);
    expect(fakePdf.body.detail).toContain("do not start with %PDF-");
    const binary = await post().attach("file", Buffer.from([0x00, 0xff, 0x10]), "notes.txt");
    expect(binary.status).toBe(415);
  });

  test("a form without a file, or with fields that do not parse, is a 400 naming the field", async () => {
    const noFile = await post().field("source", "x");
    expect(noFile.status).toBe(400);
    expect(noFile.body.errors[0].field).toBe("body.file");
    const badMetadata = await post().field("metadata", "{not json").attach("file", Buffer.from("# A"), "a.md");
    expect(badMetadata.status).toBe(400);
    expect(badMetadata.body.errors[0].field).toBe("body.metadata");
    const badSource = await post().field("source", "{not json").attach("file", Buffer.from("# A"), "a.md");
    expect(badSource.status).toBe(400);
    expect(badSource.body.errors[0]).toEqual({ field: "body.source", message: "must be a source id or a JSON object" });
  });
});
