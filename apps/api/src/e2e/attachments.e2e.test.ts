// Attachments on turns (issue #43) through the real service: a shared photo's caption is read back with the turn,
// found by /query, quoted as evidence (the model behind the local wire-protocol server quotes it, and the span points
// past the content into the attachment text), exported and imported, refused over its caps
// naming the field; and its URL is never fetched. Erasure of a caption: erasure.e2e.test.ts.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { WRITE_CAPS, sliceBytes, turnSourceText } from "@recall/contracts";
import { startFakeLlmServer, waitFor, type FakeLlmServer } from "@recall/test-support";
import request from "supertest";
import { contextClient, createContext, type ContextClient, type ContextHandle } from "../testing/api-client";
import { startHarness, type Harness } from "../testing/harness";

let h: Harness;
let llm: FakeLlmServer;
/** A server the URL of an attachment points at: it counts what it is asked, which must be nothing. */
let photoHost: Server;
let photoHits = 0;

const NOTHING = { entities: [], attributes: [], relations: [], instructions: [], revocations: [], uncertainties: [] };
const CAPTION = "a photo of a golden retriever named Quillibrant asleep on a beach towel";
const QUOTE = "a golden retriever named Quillibrant";
type ByteSpan = { start_byte: number; end_byte: number };

beforeAll(async () => {
  photoHost = createServer((_req, res) => {
    photoHits += 1;
    res.end("a photo");
  });
  await new Promise<void>((resolve) => photoHost.listen(0, "127.0.0.1", resolve));
  llm = await startFakeLlmServer();
  llm.respondWith((req) => {
    if (!JSON.stringify(req.body).includes("Quillibrant")) return { json: NOTHING };
    return {
      json: {
        ...NOTHING,
        entities: [{ name: "Quillibrant", type: "animal", memory_category: "knowledge", aliases: [] }],
        attributes: [
          {
            entity: "Quillibrant",
            key: "breed",
            value: "golden retriever",
            memory_category: "knowledge",
            evidence: QUOTE,
            confidence: 0.9,
            significance: "medium",
            valid_from: null,
            valid_to: null,
          },
        ],
      },
    };
  });
  h = await startHarness({ RECALL_FAST_MODEL: "openai-compatible:test-fast", OPENAI_BASE_URL: llm.openaiBaseUrl });
}, 120_000);

afterAll(async () => {
  await h?.close();
  await llm?.close();
  await new Promise((resolve) => photoHost?.close(resolve));
});

const photoUrl = () => `http://127.0.0.1:${(photoHost.address() as AddressInfo).port}/dog.jpg`;

async function shareAPhoto(api: ContextClient, caption = CAPTION) {
  const session = await api.session();
  const attachments = [{ kind: "image", caption, alt_text: "dog on towel", url: photoUrl(), mime_type: "image/jpeg" }];
  const res = await api.post(`/sessions/${session}/turns`, { role: "user", content: "Take a look!", attachments, scope: ["org=acme"] });
  expect(res.status).toBe(200);
  return { session, turnId: res.body.turn_id as string, status: res.body.extraction.status as string, attachments };
}

describe("a turn sharing a photo", () => {
  let ctx: ContextHandle;
  let api: ContextClient;
  let shared: Awaited<ReturnType<typeof shareAPhoto>>;

  beforeAll(async () => {
    ctx = await createContext(h.app, "attachments");
    api = contextClient(h.app, ctx);
    shared = await shareAPhoto(api);
  });

  test("is read back with its attachments, in the list and alone", async () => {
    expect(shared.status).toBe("committed");
    const one = await api.get(`/sessions/${shared.session}/turns/${shared.turnId}?scope[org]=acme`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      content: "Take a look!",
      attachments: shared.attachments,
      attachment_text: `[image] ${CAPTION} — dog on towel`,
    });
    const list = await api.get(`/sessions/${shared.session}/turns?scope[org]=acme`);
    expect(list.body.turns[0].attachments).toEqual(shared.attachments);
  });

  test("is found by a word of its caption, the hit showing the caption after the content", async () => {
    const res = await api.post("/query", { query: "retriever", scope: ["org=acme"], kinds: ["turn"] });
    expect(res.status).toBe(200);
    const hit = res.body.results.find((r: { id: string }) => r.id === shared.turnId);
    expect(hit?.text).toContain("[image] a photo of a golden retriever named Quillibrant");
    const pack = await api.post("/context", { message: "What does Quillibrant look like?", scope: ["org=acme"] });
    expect(JSON.stringify(pack.body)).toContain("retriever named Quillibrant");
  });

  test("is quoted as evidence: the span points past the content into the attachment text", async () => {
    const prompt = llm.requests.find((r) => JSON.stringify(r.body).includes("Quillibrant"));
    expect(JSON.stringify(prompt?.body)).toContain("Take a look!\\n[image] a photo of a golden retriever");
    expect(JSON.stringify(prompt?.body)).toContain("start with [image], [file] or [link] describe what the speaker shared");
    const [assertion] = await h.api.db.assertion.findMany({ where: { contextId: ctx.contextId, predicate: "breed" } });
    expect(assertion?.quote).toBe(QUOTE);
    const turn = await h.api.db.turn.findUniqueOrThrow({ where: { id: shared.turnId } });
    const text = turnSourceText(turn);
    expect(assertion!.startByte).toBeGreaterThan(Buffer.byteLength(turn.content));
    expect(sliceBytes(text, { start_byte: assertion!.startByte, end_byte: assertion!.endByte })).toBe(QUOTE);
    const fact = await h.api.db.attribute.findFirstOrThrow({ where: { contextId: ctx.contextId, key: "breed" } });
    const provenance = await api.get(`/facts/${fact.id}/provenance?scope[org]=acme`);
    expect(provenance.status).toBe(200);
    expect(JSON.stringify(provenance.body)).toContain(`"text":"${QUOTE}"`);
  });

  test("is exported with its attachments and imported into another context the same", async () => {
    const exported = (await api.get("/export")).text;
    const line = exported
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.kind === "turn");
    expect(line).toMatchObject({ attachments: shared.attachments, attachment_text: "[image] " + CAPTION + " — dog on towel" });
    const target = await createContext(h.app, "attachments-import");
    const imported = await request(h.app)
      .post(`/api/v1/${target.contextId}/import`)
      .set("API-KEY", target.apiKey)
      .set("Content-Type", "application/x-ndjson")
      .send(exported);
    expect(imported.status).toBe(200);
    const copy = await h.api.db.turn.findFirstOrThrow({ where: { contextId: target.contextId } });
    expect({ attachments: copy.attachments, text: copy.attachmentText }).toEqual({
      attachments: shared.attachments,
      text: "[image] " + CAPTION + " — dog on towel",
    });
    const found = await contextClient(h.app, target).post("/query", { query: "retriever", scope: ["org=acme"], kinds: ["turn"] });
    expect(found.body.results.map((r: { id: string }) => r.id)).toEqual([copy.id]);
  });

  test("a hand-made turn line whose attachment text is not its attachments' is refused", async () => {
    const forged = (await api.get("/export")).text
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .map((l) => (l.kind === "turn" ? { ...l, attachment_text: "[image] a cat" } : l));
    const target = await createContext(h.app, "attachments-forged");
    const res = await request(h.app)
      .post(`/api/v1/${target.contextId}/import`)
      .set("API-KEY", target.apiKey)
      .set("Content-Type", "application/x-ndjson")
      .send(forged.map((l) => JSON.stringify(l)).join("\n"));
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toMatch(/^line \d+\.attachment_text$/);
  });
});

test("a held candidate quoting a caption shows its quote and span in the review, and commits once approved", async () => {
  const api = contextClient(h.app, await createContext(h.app, "attachments-review", { review: "required" }));
  const { turnId } = await shareAPhoto(api);
  const reviews = (await api.get("/reviews?kind=attribute")).body.reviews as { review_id: string; quote: string; span: ByteSpan }[];
  expect(reviews).toHaveLength(1);
  const turn = await h.api.db.turn.findUniqueOrThrow({ where: { id: turnId } });
  expect(reviews[0]!.quote).toBe(QUOTE);
  expect(sliceBytes(turnSourceText(turn), reviews[0]!.span)).toBe(QUOTE);
  expect((await api.post(`/reviews/${reviews[0]!.review_id}/approve`)).status).toBe(202);
  const committed = async () => h.api.db.attribute.count({ where: { contextId: turn.contextId, key: "breed" } });
  await waitFor(async () => ((await committed()) === 1 ? true : undefined), { what: "the approved fact to commit" });
});

test("a batch's turns keep their attachments, and a window's prompt reads the captions", async () => {
  const api = contextClient(h.app, await createContext(h.app, "attachments-batch"));
  const session = await api.session();
  const turns = [
    { role: "user", content: "We went hiking.", attachments: [{ kind: "image", caption: "a waterfall called Brennovar Falls" }] },
    { role: "user", content: "Look at this view!", attachments: [{ kind: "image", alt_text: "snowy Tarnhelm ridge at sunrise" }] },
  ];
  const res = await api.post(`/sessions/${session}/turns/batch`, { turns });
  expect(res.status).toBe(202);
  const status = res.body.status_url.replace(/^\/api\/v1\/[^/]+/, "");
  await waitFor(async () => ((await api.get(status)).body.state === "done" ? true : undefined), { what: "the batch to finish" });
  const listed = (await api.get(`/sessions/${session}/turns`)).body.turns as { attachments: unknown[] }[];
  expect(listed.map((t) => t.attachments)).toEqual(turns.map((t) => t.attachments));
  const found = await api.post("/query", { query: "Tarnhelm", scope: [], kinds: ["turn"] });
  // Best first: the turn whose alt text names it (its neighbour in the session may follow, lifted by it).
  expect(found.body.results[0]).toMatchObject({
    id: res.body.turn_ids[1],
    text: "Look at this view!\n[image] snowy Tarnhelm ridge at sunrise",
  });
  const asked = llm.requests.map((r) => JSON.stringify(r.body)).filter((b) => b.includes("Brennovar"));
  expect(asked.some((b) => b.includes("Tarnhelm"))).toBe(true);
});

test("over a cap an attachment is refused naming its field; a URL must be http(s)", async () => {
  const api = contextClient(h.app, await createContext(h.app, "attachments-caps"));
  const session = await api.session();
  const send = (attachments: unknown[]) => api.post(`/sessions/${session}/turns`, { role: "user", content: "Look.", attachments });
  const fieldOf = (res: { body: { errors?: { field: string; message: string }[] } }) => res.body.errors?.[0];
  expect(fieldOf(await send([{ kind: "image", caption: "x".repeat(WRITE_CAPS.attachment_text + 1) }]))).toEqual({
    field: "body.attachments.0.caption",
    message: expect.stringContaining("(attachment_text cap)"),
  });
  expect(fieldOf(await send(Array(WRITE_CAPS.attachments + 1).fill({ kind: "link" })))?.field).toBe("body.attachments");
  expect(fieldOf(await send([{ kind: "link", url: "file:///etc/passwd" }]))).toEqual({
    field: "body.attachments.0.url",
    message: "must be an http or https URL",
  });
  expect(fieldOf(await send([{ kind: "video" }]))?.field).toBe("body.attachments.0.kind");
});

test("an attachment's URL is never fetched", async () => {
  // Every turn above carried a URL of the photo host, and each was extracted, read, searched, exported and imported.
  expect(photoHits).toBe(0);
});
