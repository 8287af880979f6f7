// Every read answer is bounded in bytes (#42): turns of 100,000 characters, a document of 8 MB
// split into nodes of 1 MB, and facts and instructions with values of 60,000 characters (as rows
// stored before the write caps may hold) would make /query, /context, /state, /profile and a
// session's turn list answer several MB each. Each answer stays within 1 MB, the excerpts keep
// the words that matched, and the whole text stays readable one turn or one range at a time.
import { READ_LIMITS } from "@recall/memory";
import { startHarness, type Harness } from "../testing/harness";
import { contextClient, createContext, type ContextClient } from "../testing/api-client";

let h: Harness;
let api: ContextClient;
let contextId: string;
let session: string;
const SCOPE = ["org=acme"];
const Q = "scope[org]=acme";
const LOREM = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore ";
/** A word that occurs once, late in a long text: an excerpt cut from the text's start would lose it. */
const MARKER = "zeppelin";
const TURN_CHARS = 100_000;
const NODE_CHARS = 1_000_000;
const NODES = 8;
const turnTexts: string[] = [];
let documentId: string;
let documentText: string;

/** `chars` characters of lorem ipsum, with `marker` at 90% of the way through. */
function longText(chars: number, marker?: string): string {
  const text = LOREM.repeat(Math.ceil(chars / LOREM.length)).slice(0, chars);
  if (!marker) return text;
  const at = text.indexOf(" ", Math.floor(chars * 0.9)) + 1;
  return `${text.slice(0, at)}${marker} ${text.slice(at)}`.slice(0, chars);
}

const bytes = (res: { text: string }) => Buffer.byteLength(res.text, "utf8");

beforeAll(async () => {
  // No workers: raw text is searched as stored, and the facts are direct writes committed in the request.
  h = await startHarness({}, []);
  const ctx = await createContext(h.app, "bounds");
  contextId = ctx.contextId;
  api = contextClient(h.app, ctx);
  session = await api.session();
  for (let i = 0; i < 12; i++) {
    // Each its own: the same words twice are one result (search-reader.ts, withoutRepeatedTurns).
    turnTexts.push(`turn${i} ${longText(TURN_CHARS, i === 3 ? MARKER : undefined)}`.slice(0, TURN_CHARS));
    const res = await api.post(`/sessions/${session}/turns`, { role: "user", content: turnTexts[i], scope: SCOPE, wait: false });
    expect(res.status).toBe(202);
  }
  await storeDocument();
  await storeLongFacts();
}, 120_000);

afterAll(async () => {
  await h?.close();
});

/** The document as POST /documents stores it, split into nodes as the parse stage would (no worker runs here). */
async function storeDocument(): Promise<void> {
  const nodes = Array.from({ length: NODES }, (_, i) => longText(NODE_CHARS, i === 5 ? MARKER : undefined));
  documentText = nodes.join("");
  const res = await api.post("/documents", { text: documentText, format: "text", scope: SCOPE });
  expect(res.status).toBe(202);
  documentId = res.body.document_id;
  await h.api.db.documentNode.createMany({
    data: nodes.map((text, ordinal) => ({
      documentId,
      ordinal,
      text,
      startByte: ordinal * NODE_CHARS,
      endByte: (ordinal + 1) * NODE_CHARS,
    })),
  });
}

/** Written short, then lengthened in place: rows from before the write caps. */
async function storeLongFacts(): Promise<void> {
  const attributes = Array.from({ length: 25 }, (_, i) => ({
    entity: "Zed",
    entity_type: "person",
    key: `note_${i}`,
    value: `lorem ${i}`,
    memory_category: "knowledge",
  }));
  const instructions = [{ label: "style", description: "lorem answer briefly" }];
  const res = await api.post("/facts", { scope: SCOPE, attributes, instructions });
  expect(res.status).toBe(201);
  await h.api.db.$executeRaw`UPDATE attributes SET value = ${longText(60_000, MARKER)} || id::text WHERE context_id = ${contextId}::uuid`;
  await h.api.db.$executeRaw`UPDATE instructions SET description = ${longText(60_000)} WHERE context_id = ${contextId}::uuid`;
  await h.api.db.$executeRaw`UPDATE entities SET name = ${"Zed " + "very ".repeat(2_000)} WHERE context_id = ${contextId}::uuid`;
}

const LIMIT = READ_LIMITS.answerBytes;

interface Hit {
  kind: string;
  id: string;
  text: string;
  truncated: boolean;
  excerpt?: { start_byte: number; end_byte: number; text_bytes: number };
  link: { session_id?: string; document_id?: string; start_byte?: number };
}

test("a document's text range is moved to whole characters, and an empty or reversed range is empty", async () => {
  // a, é (2 bytes), 🎉 (4 bytes), b: byte 2 is inside é, byte 4 inside 🎉.
  const res = await api.post("/documents", { text: "aé🎉b", scope: SCOPE });
  const id = res.body.document_id;
  const range = await api.get(`/documents/${id}/text?${Q}&start_byte=2&end_byte=4`);
  expect(range.body).toMatchObject({ start_byte: 3, end_byte: 7, text: "🎉", text_bytes: 8, next_start_byte: 7 });
  const reversed = await api.get(`/documents/${id}/text?${Q}&start_byte=5&end_byte=1`);
  expect(reversed.status).toBe(200);
  expect(reversed.body.text).toBe("");
});

describe("POST /query", () => {
  test("a hundred hits of the longest texts answer within 1 MB, each cut to an excerpt with its offsets", async () => {
    const res = await api.post("/query", { query: "lorem", scope: SCOPE, limit: 100 });
    expect(res.status).toBe(200);
    expect(bytes(res)).toBeLessThanOrEqual(LIMIT);
    const hits: Hit[] = res.body.results;
    expect(hits.filter((r) => r.kind === "turn")).toHaveLength(12);
    expect(hits.filter((r) => r.kind === "document_node")).toHaveLength(NODES);
    for (const hit of hits.filter((r) => r.kind === "turn" || r.kind === "document_node")) {
      expect(hit).toMatchObject({ truncated: true, excerpt: { text_bytes: hit.kind === "turn" ? TURN_CHARS : NODE_CHARS } });
      expect(hit.text.length).toBeLessThanOrEqual(READ_LIMITS.excerptChars);
      expect(hit.text).toContain("lorem");
    }
  });

  test("the excerpt keeps the matched word however late in the text, and the whole turn is read by its id", async () => {
    const res = await api.post("/query", { query: `${MARKER} plans`, scope: SCOPE, limit: 100 });
    const turn: Hit = res.body.results.find((r: Hit) => r.kind === "turn");
    expect(turn.text).toContain(MARKER);
    expect(turn.excerpt!.start_byte).toBeGreaterThan(TURN_CHARS / 2);
    const whole = await api.get(`/sessions/${turn.link.session_id}/turns/${turn.id}?${Q}`);
    expect(whole.status).toBe(200);
    expect(whole.body.content).toBe(turnTexts[3]);
    expect(Buffer.from(whole.body.content).subarray(turn.excerpt!.start_byte, turn.excerpt!.end_byte).toString()).toBe(turn.text);
    expect((await api.get(`/sessions/${turn.link.session_id}/turns/${turn.id}`)).status).toBe(404);
  });

  test("a document node's excerpt is read in full by byte range from the document's text", async () => {
    const res = await api.post("/query", { query: MARKER, scope: SCOPE, kinds: ["document_node"], limit: 5 });
    const node: Hit = res.body.results[0];
    expect(node.text).toContain(MARKER);
    const from = node.link.start_byte! + node.excerpt!.start_byte;
    const range = await api.get(`/documents/${documentId}/text?${Q}&start_byte=${from}`);
    expect(range.status).toBe(200);
    expect(bytes(range)).toBeLessThanOrEqual(LIMIT);
    expect(range.body).toMatchObject({ start_byte: from, text_bytes: documentText.length });
    expect(range.body.text.startsWith(node.text)).toBe(true);
    expect(range.body.next_start_byte).toBe(from + READ_LIMITS.textRangeBytes);
    const last = await api.get(`/documents/${documentId}/text?${Q}&start_byte=${documentText.length - 10}`);
    expect(last.body).toMatchObject({ text: documentText.slice(-10), next_start_byte: null });
    expect((await api.get(`/documents/${documentId}/text?scope[org]=other`)).status).toBe(404);
  });
});

test("POST /context stays within 1 MB at its largest budget and its excerpt keeps the matched word", async () => {
  const res = await api.post("/context", { message: `lorem ${MARKER}`, scope: SCOPE, max_tokens: 16_000 });
  expect(res.status).toBe(200);
  expect(bytes(res)).toBeLessThanOrEqual(LIMIT);
  const excerpts: { id: string; text: string }[] = res.body.sections.excerpts;
  expect(excerpts.length).toBeGreaterThan(0);
  expect(excerpts.some((e) => e.text.includes(MARKER))).toBe(true);
});

test("POST /state clips long values with a flag and stays within 1 MB", async () => {
  const res = await api.post("/state", { scope: SCOPE, limit: 2_000 });
  expect(res.status).toBe(200);
  expect(bytes(res)).toBeLessThanOrEqual(LIMIT);
  expect(res.body.facts).toHaveLength(25);
  for (const fact of res.body.facts) {
    expect(fact).toMatchObject({ truncated: true });
    expect(fact.value.length).toBeLessThanOrEqual(READ_LIMITS.valueChars);
    expect(fact.entity.name.length).toBeLessThanOrEqual(READ_LIMITS.nameChars);
  }
  expect(res.body.instructions).toEqual([expect.objectContaining({ label: "style", truncated: true })]);
});

test("GET /profile clips long values with a flag and stays within 1 MB", async () => {
  const res = await api.get(`/profile?${Q}&limit=500`);
  expect(res.status).toBe(200);
  expect(bytes(res)).toBeLessThanOrEqual(LIMIT);
  const [zed] = res.body.entities;
  expect(zed).toMatchObject({ truncated: true });
  expect(zed.attributes).toHaveLength(25);
  expect(zed.attributes.every((a: { value: string }) => a.value.length <= READ_LIMITS.valueChars)).toBe(true);
});

test("a session's turn list ends its page within 1 MB and its cursor continues to every turn", async () => {
  const seen: string[] = [];
  let cursor: string | null = "";
  while (cursor !== null) {
    const res = await api.get(`/sessions/${session}/turns?${Q}&limit=500${cursor ? `&cursor=${cursor}` : ""}`);
    expect(res.status).toBe(200);
    expect(bytes(res)).toBeLessThanOrEqual(LIMIT);
    seen.push(...res.body.turns.map((t: { content: string }) => t.content));
    cursor = res.body.next_cursor;
  }
  expect(seen).toEqual(turnTexts);
});

test("an entity's history keeps values whole and ends its page within 1 MB; its cursor continues to every value", async () => {
  const profile = await api.get(`/profile?${Q}`);
  const zed = profile.body.entities[0].id;
  const values: string[] = [];
  let cursor: string | null = "";
  while (cursor !== null) {
    const res = await api.get(`/entities/${zed}/history?${Q}&limit=1000${cursor ? `&cursor=${cursor}` : ""}`);
    expect(res.status).toBe(200);
    expect(bytes(res)).toBeLessThanOrEqual(LIMIT);
    values.push(...res.body.values.map((v: { value: string }) => v.value));
    cursor = res.body.next_cursor;
  }
  expect(values).toHaveLength(25);
  expect(values.every((v) => v.length > 60_000 && v.includes(MARKER))).toBe(true);
});

test("an entity's history header is clipped, flagged, when a row from before the caps has thousands of long aliases", async () => {
  const profile = await api.get(`/profile?${Q}`);
  const zed = profile.body.entities[0].id;
  const aliases = Array.from({ length: 5_000 }, (_, i) => `alias ${i} ${"very ".repeat(40)}`);
  await h.api.db.entity.update({ where: { id: zed }, data: { aliases } });
  try {
    const res = await api.get(`/entities/${zed}/history?${Q}&limit=1000`);
    expect(res.status).toBe(200);
    expect(bytes(res)).toBeLessThanOrEqual(LIMIT);
    expect(res.body.entity).toMatchObject({ id: zed, truncated: true });
    expect(res.body.entity.aliases).toHaveLength(READ_LIMITS.aliases);
    expect(res.body.values.length).toBeGreaterThan(0);
  } finally {
    await h.api.db.entity.update({ where: { id: zed }, data: { aliases: [] } });
  }
});

test("the work-item list clips error messages, flagged, and ends its page within 1 MB; the item's own route has it whole", async () => {
  const message = longText(200_000);
  const failed = await h.api.db.$executeRaw`
    UPDATE work_items SET status = 'failed', error_class = 'provider', error_message = ${message} || id::text
    WHERE context_id = ${contextId}::uuid`;
  expect(failed).toBeGreaterThanOrEqual(12);
  const seen: string[] = [];
  let cursor: string | null = "";
  while (cursor !== null) {
    const res = await api.get(`/work-items?limit=500${cursor ? `&cursor=${cursor}` : ""}`);
    expect(res.status).toBe(200);
    expect(bytes(res)).toBeLessThanOrEqual(LIMIT);
    for (const item of res.body.work_items) {
      expect(item.error).toMatchObject({ class: "provider", truncated: true });
      expect(item.error.message.length).toBeLessThanOrEqual(READ_LIMITS.valueChars);
      seen.push(item.work_item_id);
    }
    cursor = res.body.next_cursor;
  }
  expect(new Set(seen).size).toBe(failed);
  const one = await api.get(`/work-items/${seen[0]}`);
  expect(one.body.error.message).toBe(`${message}${seen[0]}`);
});
