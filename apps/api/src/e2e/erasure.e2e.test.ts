// Erasure through the real service (API, workers, Postgres, Redis, the model behind a local wire-protocol server):
// an erased turn's text is in no column of any table afterwards, and its receipt is answered and read back; a fact
// two inputs support survives the erasure of one with the other's provenance; a scope erases a data subject's
// inputs; a document erased while its extraction waits on the model commits nothing later; the 4xx cases; two
// erasures of one turn at once; the admin erasure of a whole context.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { get, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import request from "supertest";
import { startFakeLlmServer, waitFor, type FakeLlmServer } from "@recall/test-support";
import { holdScopeExclusive } from "@recall/memory";
import { QUEUE_NAMES, jobIdFor } from "@recall/pipeline";
import { ADMIN_KEY, startHarness, type Harness } from "../testing/harness";
import { redisKeysHolding, tablesHolding } from "../testing/text-scan";

let h: Harness;
let llm: FakeLlmServer;
let ctx: string;
let key: string;
const blobDir = mkdtempSync(join(tmpdir(), "recall-erasure-blobs-"));

const NOTHING = { entities: [], attributes: [], relations: [], instructions: [], revocations: [], uncertainties: [] };
const fields = { memory_category: "knowledge", confidence: 0.9, significance: "high", valid_from: null, valid_to: null } as const;
const role = (person: string, value: string, evidence: string) => ({
  json: {
    ...NOTHING,
    entities: [{ name: person, type: "person", memory_category: "identity", aliases: [] }],
    attributes: [{ entity: person, key: "role", value, evidence, ...fields }],
  },
});

beforeAll(async () => {
  llm = await startFakeLlmServer();
  // Whatever the script does not cover (a turn the heuristics hand on) learns nothing.
  llm.respondWith(() => ({ json: NOTHING }));
  h = await startHarness({
    RECALL_FAST_MODEL: "openai-compatible:test-fast",
    OPENAI_BASE_URL: llm.openaiBaseUrl,
    RECALL_BLOB_DIR: blobDir,
  });
  ({ ctx, key } = await newContext("erasure"));
});
afterAll(async () => {
  await h?.close();
  await llm?.close();
  rmSync(blobDir, { recursive: true, force: true });
});

async function newContext(name: string): Promise<{ ctx: string; key: string }> {
  const res = await request(h.app).post("/api/v1/contexts").set("Authorization", `Bearer ${ADMIN_KEY}`).send({ name });
  return { ctx: res.body.context_id, key: res.body.api_key };
}

const api = (path: string, c = ctx) => `/api/v1/${c}${path}`;

async function newSession(c = ctx, k = key): Promise<string> {
  return (await request(h.app).post(api("/sessions", c)).set("API-KEY", k).send({})).body.session_id;
}

async function say(session: string, content: string, extra: Record<string, unknown> = {}, c = ctx, k = key) {
  const res = await request(h.app)
    .post(api(`/sessions/${session}/turns`, c))
    .set("API-KEY", k)
    .set("Idempotency-Key", `turn-${Math.random()}`)
    .send({ role: "user", content, ...extra });
  expect(res.status).toBe(200);
  expect(res.body.extraction.status).toBe("committed");
  return res.body.turn_id as string;
}

const erase = (body: object, c = ctx, k = key) => request(h.app).post(api("/erasures", c)).set("API-KEY", k).send(body);

async function committed(documentId: string): Promise<void> {
  await waitFor(
    async () => {
      const res = await request(h.app)
        .get(api(`/documents/${documentId}/status`))
        .set("API-KEY", key);
      return res.body.state === "committed" || res.body.state === "failed" ? res.body.state : undefined;
    },
    { what: `document ${documentId} to finish` },
  );
}

/** Jobs of every stage and lane in these states. */
async function jobs(...states: ("active" | "waiting" | "delayed" | "prioritized" | "failed")[]): Promise<number> {
  let total = 0;
  for (const lane of [h.api.queues, h.api.queues.background]) {
    for (const name of QUEUE_NAMES) {
      const counts = await lane[name].getJobCounts(...states);
      total += Object.values(counts).reduce((a, b) => a + b, 0);
    }
  }
  return total;
}

/** No job of any stage is waiting, delayed or running: every in-flight stage has ended. */
const queuesIdle = async () => (await jobs("active", "waiting", "delayed", "prioritized")) === 0;

async function search(text: string): Promise<{ results: unknown[] }> {
  const res = await request(h.app)
    .post(api("/query"))
    .set("API-KEY", key)
    .send({ query: text, scope: ["org=acme"] });
  expect(res.status).toBe(200);
  return res.body;
}

test("an erased turn's text is in no table afterwards, and its receipt is answered and read back by GET", async () => {
  const marker = "Zorblaxquon";
  const session = await newSession();
  const erased = await say(session, `I'm ${marker}, CTO at Acme. Always respond in bullet points.`, { scope: ["org=acme"] });
  const kept = await say(session, "I'm Alice, CFO at Initech.", { scope: ["org=acme"] });
  llm.script(role("Bruno Diaz", "CFO", "Bruno Diaz is the CFO of Initech"));
  const doc = await request(h.app).post(api("/documents")).set("API-KEY", key).send({ text: "Bruno Diaz is the CFO of Initech." });
  await committed(doc.body.document_id);

  const before = await tablesHolding(h.api.db, marker);
  // The scan sees the text where ingest and extraction put it, so "nowhere" below means something.
  expect(before.map((t) => `${t.table}.${t.column}`)).toEqual(
    expect.arrayContaining([
      "turns.content",
      "turns.content_tsv",
      "search_term_stats.lexeme",
      "assertions.quote",
      "entities.name",
      "knowledge_candidates.payload",
    ]),
  );
  const storedAnswers = () => h.api.db.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM idempotency_keys WHERE ${erased}::uuid = ANY(input_ids)`;
  expect((await storedAnswers())[0]!.n).toBe(1);

  expect((await search(marker)).results.length).toBeGreaterThan(0);

  const res = await erase({ turn_ids: [erased] });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    kind: "inputs",
    complete: true,
    erased: { turn_ids: [erased], document_ids: [], fact_write_ids: [], session_ids: [] },
    already_erased: { turn_ids: [] },
    hash: expect.stringMatching(/^[0-9a-f]{64}$/),
  });
  expect(res.body.counts).toMatchObject({ turns: 1, attributes: 1, relations: 1, instructions: 1, idempotency_keys: 1 });
  expect(res.body.counts.knowledge_candidates).toBeGreaterThan(0);
  expect(res.body.counts.entities).toBeGreaterThanOrEqual(1);

  expect(await tablesHolding(h.api.db, marker)).toEqual([]);
  expect((await storedAnswers())[0]!.n).toBe(0);
  const read = await request(h.app)
    .get(api(`/erasures/${res.body.erasure_id}`))
    .set("API-KEY", key);
  expect(read.status).toBe(200);
  expect(read.body).toEqual(res.body);
  // What else was said stays: the other turn, the document, and what they taught.
  expect(await h.api.db.turn.count({ where: { id: kept } })).toBe(1);
  expect(await h.api.db.document.count({ where: { id: doc.body.document_id } })).toBe(1);
  const profile = await request(h.app)
    .get(api("/profile"))
    .query({ scope: { org: "acme" } })
    .set("API-KEY", key);
  expect(profile.body.instructions).toEqual([]);
  expect(JSON.stringify(profile.body)).toContain("Alice");
  // Search finds nothing of the erased turn (it found it before).
  expect((await search(marker)).results).toEqual([]);
});

test("an erased turn's attachment text (a photo's caption) is in no table afterwards", async () => {
  const marker = "Zephyrquallix";
  const session = await newSession();
  const attachments = [{ kind: "image", caption: `${marker} the parrot on a perch`, alt_text: `${marker} asleep` }];
  const erased = await say(session, "Take a look!", { scope: ["org=acme"], attachments });
  const before = (await tablesHolding(h.api.db, marker)).map((t) => `${t.table}.${t.column}`);
  expect(before).toEqual(expect.arrayContaining(["turns.attachments", "turns.attachment_text", "turns.content_tsv"]));
  expect((await search(marker)).results.length).toBeGreaterThan(0);
  expect((await erase({ turn_ids: [erased] })).status).toBe(200);
  expect(await tablesHolding(h.api.db, marker)).toEqual([]);
  expect((await search(marker)).results).toEqual([]);
});

test("a name first stated in an erased turn lives on nowhere: not in the entity, kept candidates, reads, Redis", async () => {
  const marker = "Quorvane";
  const scope = ["org=copied"];
  // A context of its own: "I" is the one person it knows.
  const { ctx: c, key: k } = await newContext("copied");
  const session = await newSession(c, k);
  const erased = await say(session, `I'm ${marker}, CTO at Acme.`, { scope }, c, k);
  const kept = await say(session, "I live in Berlin.", { scope }, c, k);
  // One no rule reads: its extraction goes on to the model, its heuristic stage's output quoting it.
  const hummed = await say(session, `${marker} hummed the harbour song while the ferries idled.`, { scope }, c, k);
  const copied = await h.api.db.knowledgeCandidate.findMany({ where: { subjectId: kept } });
  expect(copied.filter((c) => JSON.stringify(c.payload).includes(marker)).length).toBeGreaterThan(0);
  const items = await h.api.db.workItem.findMany({ where: { subjectId: { in: [erased, hummed] } }, select: { id: true, queue: true } });
  expect(items.length).toBeGreaterThan(0);
  // Job data and return values are ids and statuses only, before the erasure as after.
  expect(await redisKeysHolding(h.worker.connection, h.config.QUEUE_PREFIX, marker)).toEqual([]);

  const res = await erase({ turn_ids: [erased, hummed] }, c, k);
  expect(res.status).toBe(200);
  expect(res.body.counts).toMatchObject({ entities_renamed: 1, copies_rewritten: expect.any(Number) });

  expect(await tablesHolding(h.api.db, marker)).toEqual([]);
  expect(await redisKeysHolding(h.worker.connection, h.config.QUEUE_PREFIX, marker)).toEqual([]);
  for (const item of items) {
    const queue = h.api.queues[item.queue as (typeof QUEUE_NAMES)[number]];
    expect(await queue.getJob(jobIdFor(item.id))).toBeUndefined();
  }
  const profile = await request(h.app)
    .get(api("/profile", c))
    .query({ scope: { org: "copied" } })
    .set("API-KEY", k);
  expect(JSON.stringify(profile.body)).not.toContain(marker);
  // What the kept turn says stays, about an entity that no longer has the erased name.
  const speaker = profile.body.entities.find((e: { relations: { predicate: string }[] }) =>
    e.relations.some((r) => r.predicate === "lives_in"),
  );
  expect(speaker).toMatchObject({
    name: "unnamed person",
    relations: [expect.objectContaining({ object: expect.objectContaining({ name: "Berlin" }) })],
  });
  const query = (text: string) => request(h.app).post(api("/query", c)).set("API-KEY", k).send({ query: text, scope });
  const found = await query("Berlin");
  expect(found.body.results.map((r: { text: string }) => r.text)).toContain("unnamed person lives_in Berlin");
  expect(JSON.stringify(found.body)).not.toContain(marker);
  expect((await query(marker)).body.results).toEqual([]);
  // A later "I'm Quorvane" is a new person, not the renamed one.
  await say(session, `I'm ${marker}, CFO at Initech.`, { scope }, c, k);
  const named = await h.api.db.entity.findMany({ where: { contextId: c, name: { in: [marker, "unnamed person"] } } });
  expect(new Set(named.map((e) => e.name))).toEqual(new Set([marker, "unnamed person"]));
});

test("a fact two inputs support survives the erasure of one, with only the other's provenance", async () => {
  const scope = ["org=twice"];
  const first = await say(await newSession(), "I'm Carol, CTO at Globex.", { scope });
  const second = await say(await newSession(), "I'm Carol, CTO at Globex.", { scope });
  const res = await erase({ turn_ids: [first] });
  expect(res.body.erased.turn_ids).toEqual([first]);

  const profile = await request(h.app)
    .get(api("/profile"))
    .query({ scope: { org: "twice" } })
    .set("API-KEY", key);
  const carol = profile.body.entities.find((e: { name: string }) => e.name === "Carol");
  expect(carol).toBeDefined();
  expect(JSON.stringify(carol)).toContain("CTO");
  const roles = await h.api.db.attribute.findMany({ where: { contextId: ctx, entityId: carol.id, key: "role", retractedAt: null } });
  expect(roles.length).toBeGreaterThan(0);
  const sources = await h.api.db.assertion.findMany({ where: { id: { in: roles.map((r) => r.assertionId) } } });
  expect(new Set(sources.map((a) => a.turnId))).toEqual(new Set([second]));
  expect(await h.api.db.entityMention.count({ where: { entityId: carol.id, turnId: first } })).toBe(0);
  expect(await h.api.db.entityMention.count({ where: { entityId: carol.id, turnId: second } })).toBeGreaterThan(0);
});

test("a scope erases every input written under it, and sessions left empty; other subjects' inputs stay", async () => {
  const dana = ["org=acme", "user=dana"];
  const session = await newSession();
  const t1 = await say(session, "I'm Dana, CTO at Hooli.", { scope: dana });
  const t2 = await say(session, "Always answer Dana in French.", { scope: dana });
  const erin = await say(await newSession(), "I'm Erin, CFO at Hooli.", { scope: ["org=acme", "user=erin"] });
  const write = await request(h.app)
    .post(api("/facts"))
    .set("API-KEY", key)
    .send({
      scope: dana,
      entities: [{ name: "Dana", type: "person", memory_category: "identity", aliases: [] }],
      attributes: [{ entity: "Dana", key: "city", value: "Lisbon", memory_category: "context" }],
    });
  expect(write.status).toBeLessThan(300);
  const doc = await request(h.app)
    .post(api("/documents"))
    .set("API-KEY", key)
    .send({ text: "Dana keeps her notes in Tallinn.", scope: dana });
  await committed(doc.body.document_id);

  const res = await erase({ scope: { user: "dana" } });
  expect(res.status).toBe(200);
  expect(new Set(res.body.erased.turn_ids)).toEqual(new Set([t1, t2]));
  expect(res.body.erased.document_ids).toEqual([doc.body.document_id]);
  expect(await tablesHolding(h.api.db, "Tallinn")).toEqual([]);
  expect(res.body.erased.fact_write_ids).toEqual([write.body.fact_write_id]);
  expect(res.body.erased.session_ids).toEqual([session]);
  expect(res.body.complete).toBe(true);
  expect(await h.api.db.turn.count({ where: { id: { in: [t1, t2] } } })).toBe(0);
  expect(await h.api.db.session.count({ where: { id: session } })).toBe(0);
  expect(await h.api.db.turn.count({ where: { id: erin } })).toBe(1);
  expect(await tablesHolding(h.api.db, "Lisbon")).toEqual([]);
  expect(await tablesHolding(h.api.db, "French")).toEqual([]);
  const inputs = ["turn", "document", "fact_write", "session"];
  expect(await h.api.db.erasedInput.count({ where: { erasureId: res.body.erasure_id, kind: { in: inputs } } })).toBe(5);
  // And one per row deleted as read from them (an import refuses their lines): every fact the receipt counts.
  const facts = res.body.counts.attributes + res.body.counts.relations;
  expect(await h.api.db.erasedInput.count({ where: { erasureId: res.body.erasure_id, kind: { in: ["attribute", "relation"] } } })).toBe(
    facts,
  );
});

test("a document erased while its extraction waits on the model commits nothing when the answer comes", async () => {
  const marker = "Quintessarax";
  const asked = llm.requests.length;
  llm.script({ ...role(marker, "CEO", `${marker} is the CEO of Umbrella`), delayMs: 2_000 });
  const html = `<html><body><h1>Board</h1><p>${marker} is the CEO of Umbrella.</p></body></html>`;
  const doc = await request(h.app).post(api("/documents")).set("API-KEY", key).set("Content-Type", "text/html; charset=utf-8").send(html);
  expect(doc.status).toBe(202);
  const id = doc.body.document_id;
  await waitFor(async () => llm.requests.slice(asked).some((r) => JSON.stringify(r.body).includes(marker)), {
    what: "the extraction's model call to start",
  });
  const stored = await h.api.db.document.findUniqueOrThrow({ where: { id } });
  expect(stored.blobPath).toEqual(expect.any(String));
  expect(existsSync(join(blobDir, stored.blobPath!))).toBe(true);

  // Its extraction is running (waiting on the model's answer) while it is erased.
  expect(await jobs("active")).toBe(1);
  const res = await erase({ document_ids: [id] });
  expect(res.status).toBe(200);
  expect(res.body.erased.document_ids).toEqual([id]);
  expect(res.body.counts.work_items).toBeGreaterThan(0);
  expect(existsSync(join(blobDir, stored.blobPath!))).toBe(false);

  // The model answers after the erasure; the stage ends and nothing of it is written.
  await waitFor(queuesIdle, { what: "every stage job to end", timeoutMs: 30_000 });
  expect(await tablesHolding(h.api.db, marker)).toEqual([]);
  expect(await h.api.db.workItem.count({ where: { subjectId: id } })).toBe(0);
  expect(await h.api.db.knowledgeCandidate.count({ where: { subjectId: id } })).toBe(0);
  const profile = await request(h.app).get(api("/profile")).set("API-KEY", key);
  expect(JSON.stringify(profile.body)).not.toContain(marker);
});

test("a turn erased while its window's model call runs: the window commits the others, the erased turn writes nothing", async () => {
  const marker = "Vexlumbrine";
  const contents = [
    "Melanie told me her daughter started violin lessons with a teacher from Vienna last spring.",
    `The ${marker} bridge in Porto was delayed because the steel supplier went bankrupt.`,
    "Our quarterly review moved the Zephyr launch to October after the audit found gaps.",
  ];
  const windowFact = (turn: number, entity: string, key: string, value: string, evidence: string) => ({
    turn,
    entity,
    key,
    value,
    evidence,
    ...fields,
  });
  llm.script({
    delayMs: 1_500,
    json: {
      ...NOTHING,
      attributes: [
        windowFact(0, "Melanie's daughter", "activity", "violin lessons", "her daughter started violin lessons"),
        windowFact(1, `${marker} bridge`, "status", "delayed", `The ${marker} bridge in Porto was delayed`),
        windowFact(2, "Zephyr launch", "scheduled_for", "October", "moved the Zephyr launch to October"),
      ],
    },
  });
  const session = await newSession();
  const batch = await request(h.app)
    .post(api(`/sessions/${session}/turns/batch`))
    .set("API-KEY", key)
    .send({ turns: contents.map((content) => ({ role: "user", content, scope: ["org=window"] })) });
  expect(batch.status).toBe(202);
  const [first, erased, last] = batch.body.turn_ids as string[];
  await waitFor(async () => llm.requests.some((r) => JSON.stringify(r.body).includes(marker)), { what: "the window's model call" });
  expect(await jobs("active")).toBe(1);

  const res = await erase({ turn_ids: [erased] });
  expect(res.body.erased.turn_ids).toEqual([erased]);

  const committedFacts = async () => {
    const assertions = await h.api.db.assertion.findMany({ where: { turnId: { in: [first!, last!] } }, select: { turnId: true } });
    return new Set(assertions.map((a) => a.turnId)).size === 2 && (await queuesIdle());
  };
  await waitFor(committedFacts, { what: "the window's other turns to commit", timeoutMs: 30_000 });
  expect(await tablesHolding(h.api.db, marker)).toEqual([]);
  expect(await h.api.db.workItem.count({ where: { subjectId: erased } })).toBe(0);
  const window = await h.api.db.extractionWindow.findFirstOrThrow({ where: { sessionId: session } });
  expect(window.turnIds).toEqual([first, last]);
});

test("a session erased before its batch's job ran takes the batch's work items with it; the job then ends quietly", async () => {
  // Paused, no worker takes the batch's job before the erasure.
  await Promise.all(h.runtime.workers.map((w) => w.pause()));
  let batchId: string;
  const failedBefore = await jobs("failed");
  try {
    const session = await newSession();
    const batch = await request(h.app)
      .post(api(`/sessions/${session}/turns/batch`))
      .set("API-KEY", key)
      .send({ turns: [{ role: "user", content: "I'm Ivan, CTO at Initech.", scope: ["org=acme"] }] });
    expect(batch.status).toBe(202);
    batchId = batch.body.batch_id as string;
    const subjects = [batchId, ...(batch.body.turn_ids as string[])];
    expect(await h.api.db.workItem.count({ where: { subjectId: { in: subjects } } })).toBe(2);
    expect((await erase({ session_ids: [session] })).status).toBe(200);
    expect(await h.api.db.workItem.count({ where: { subjectId: { in: subjects } } })).toBe(0);
    expect(await h.api.db.turnBatch.count({ where: { id: batchId } })).toBe(0);
    expect(await h.api.db.erasedInput.findUnique({ where: { inputId: batchId } })).toMatchObject({ kind: "batch" });
  } finally {
    for (const w of h.runtime.workers) w.resume();
  }
  await waitFor(queuesIdle, { what: "the batch's job to end" });
  expect(await jobs("failed")).toBe(failedBefore);
  expect(await h.api.db.workItem.count({ where: { subjectId: batchId! } })).toBe(0);
});

test("4xx: nothing named, too many ids, a bad id, another context's turn (refused, not erased), an unknown receipt", async () => {
  const empty = await erase({});
  expect(empty.status).toBe(400);
  expect(empty.type).toBe("application/problem+json");
  expect(empty.body.errors[0].field).toBe("body.turn_ids");
  expect((await erase({ turn_ids: [], scope: [] })).status).toBe(400);

  const tooMany = await erase({ turn_ids: Array.from({ length: 101 }, () => crypto.randomUUID()) });
  expect(tooMany.status).toBe(400);
  expect(tooMany.body.errors[0].field).toBe("body.turn_ids");
  expect((await erase({ document_ids: ["nope"] })).body.errors[0].field).toMatch(/^body\.document_ids/);
  expect((await erase({ turn_ids: [crypto.randomUUID()], colour: "red" })).status).toBe(400);

  const other = await newContext("other");
  const theirs = await say(await newSession(other.ctx, other.key), "I'm Frank, CTO at Stark.", {}, other.ctx, other.key);
  const mine = await say(await newSession(), "I'm Gina, CTO at Wayne.");
  const refused = await erase({ turn_ids: [mine, theirs] });
  expect(refused.status).toBe(404);
  expect(refused.body.errors).toEqual([expect.objectContaining({ field: "body.turn_ids", message: expect.stringContaining(theirs) })]);
  expect(await h.api.db.turn.count({ where: { id: { in: [mine, theirs] } } })).toBe(2);

  const missing = await request(h.app)
    .get(api(`/erasures/${crypto.randomUUID()}`))
    .set("API-KEY", key);
  expect(missing.status).toBe(404);
  const receipt = await erase({ turn_ids: [mine] });
  const elsewhere = await request(h.app)
    .get(api(`/erasures/${receipt.body.erasure_id}`, other.ctx))
    .set("API-KEY", other.key);
  expect(elsewhere.status).toBe(404);
});

test("two erasures of one turn at once: one erases it, the other reports it already erased", async () => {
  const turn = await say(await newSession(), "I'm Hana, CTO at Tyrell.");
  const [a, b] = await Promise.all([erase({ turn_ids: [turn] }), erase({ turn_ids: [turn] })]);
  expect([a!.status, b!.status]).toEqual([200, 200]);
  const erasedBy = [a!, b!].filter((r) => r.body.erased.turn_ids.includes(turn));
  const reported = [a!, b!].filter((r) => r.body.already_erased.turn_ids.includes(turn));
  expect({ erased: erasedBy.length, reported: reported.length }).toEqual({ erased: 1, reported: 1 });
  expect(reported[0]!.body.counts.turns ?? 0).toBe(0);
  const later = await erase({ turn_ids: [turn] });
  expect(later.body.already_erased.turn_ids).toEqual([turn]);
});

test("a session erased while three writers post to it: no 5xx, every receipt erases it, no turn is left, later turns are refused", async () => {
  const session = await newSession();
  const post = (i: number) =>
    request(h.app)
      .post(api(`/sessions/${session}/turns`))
      .set("API-KEY", key)
      .send({ role: "user", content: `I'm Racer${i}, CTO at Acme.`, scope: ["org=race"], wait: false });
  let writing = true;
  let receipted = false;
  const answers: { status: number; type?: string; afterReceipts: boolean }[] = [];
  const writer = async (w: number) => {
    for (let i = 0; writing; i++) {
      const afterReceipts = receipted;
      const res = await post(w * 1_000 + i);
      answers.push({ status: res.status, type: res.body.type, afterReceipts });
    }
  };
  const writers = [0, 1, 2].map(writer);
  await waitFor(async () => (await h.api.db.turn.count({ where: { sessionId: session } })) >= 15, { what: "the writers' first turns" });
  const receipts = await Promise.all(Array.from({ length: 6 }, () => erase({ session_ids: [session] })));
  receipted = true;
  // The writers go on after the receipts: each of their later turns is refused.
  await waitFor(async () => answers.filter((a) => a.afterReceipts).length >= 6, { what: "turns posted after the receipts" });
  writing = false;
  await Promise.all(writers);

  for (const r of receipts) {
    expect(r.status).toBe(200);
    expect(r.body.complete).toBe(true);
    expect([...r.body.erased.session_ids, ...r.body.already_erased.session_ids]).toEqual([session]);
  }
  expect(receipts.filter((r) => r.body.erased.session_ids.length === 1)).toHaveLength(1);
  // A writer either stored its turn (202), was refused (409), or waited past RECALL_SESSION_WAIT_MS behind the
  // erasure and was told to retry (503 session_busy, on a loaded machine): never another 5xx.
  const kinds = (list: typeof answers) => new Set(list.map((a) => (a.status === 503 ? `503 ${a.type}` : String(a.status))));
  expect([...kinds(answers)].every((k) => ["202", "409", "503 https://recall.dev/problems/session_busy"].includes(k))).toBe(true);
  expect(kinds(answers).has("202")).toBe(true);
  expect(kinds(answers.filter((a) => a.afterReceipts)).has("202")).toBe(false);
  expect(kinds(answers.filter((a) => a.afterReceipts)).has("409")).toBe(true);
  expect(await h.api.db.turn.count({ where: { sessionId: session } })).toBe(0);
  expect(await h.api.db.session.count({ where: { id: session } })).toBe(0);
  const late = await post(-1);
  expect(late.status).toBe(409);
  expect(late.type).toBe("application/problem+json");
  expect(late.body).toMatchObject({ type: expect.stringMatching(/session_erased$/), detail: expect.stringContaining("erased") });
  await waitFor(queuesIdle, { what: "every stage job to end", timeoutMs: 60_000 });
  expect(await h.api.db.turn.count({ where: { sessionId: session } })).toBe(0);
  expect(await tablesHolding(h.api.db, "Racer")).toEqual([]);
});

test("a turn written under a scope while its erasure runs is stored after the receipt, never between its read and commit", async () => {
  const scope = ["org=acme", "user=zed"];
  const session = await newSession();
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  // An erasure of user=zed in progress: it holds the scope's lock (as eraseInputs does) until released.
  const erasing = h.api.db.$transaction(
    async (tx) => {
      await holdScopeExclusive(tx, ctx, ["user=zed"]);
      await released;
    },
    { timeout: 60_000 },
  );
  const waitingOnScope = async () => {
    const [row] = await h.api.db.$queryRaw<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`;
    return row!.n > 0;
  };
  await waitFor(
    async () =>
      (await h.api.db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted`)[0]!.n >
      0,
    {
      what: "the erasure to hold the scope",
    },
  );
  const posting = request(h.app)
    .post(api(`/sessions/${session}/turns`))
    .set("API-KEY", key)
    .send({ role: "user", content: "I'm Zed, CFO at Acme.", scope, wait: false });
  const fact = request(h.app)
    .post(api("/facts"))
    .set("API-KEY", key)
    .send({ scope, attributes: [{ entity: "Zed", key: "city", value: "Oslo", memory_category: "context" }] });
  const pending = [posting.then((r) => r), fact.then((r) => r)];
  await waitFor(waitingOnScope, { what: "the writers to wait for the scope's lock" });
  expect(await h.api.db.turn.count({ where: { sessionId: session } })).toBe(0);
  expect(await h.api.db.factWrite.count({ where: { contextId: ctx, scopeSetId: { not: null } } })).toBe(0);
  release();
  await erasing;
  const [turn, write] = await Promise.all(pending);
  expect([turn!.status, write!.status]).toEqual([202, 201]);
  expect(await h.api.db.turn.count({ where: { sessionId: session } })).toBe(1);
});

test("an export streaming when an erasure commits ends with an error line naming it, not its end line", async () => {
  const c = await newContext("exporting");
  const session = await newSession(c.ctx, c.key);
  // Enough text that the export cannot all sit in socket buffers while its reader is paused (about 12 MB).
  const filler = " the ledger entries went on for pages".repeat(80);
  await h.api.db.turn.createMany({
    data: Array.from({ length: 4_000 }, (_, i) => ({
      contextId: c.ctx,
      sessionId: session,
      seq: i + 1,
      role: "user",
      content: `Xylofract entry ${i}:${filler}`,
      traceId: "0".repeat(32),
    })),
  });
  const server = h.app.listen(0);
  try {
    const { port } = server.address() as AddressInfo;
    let body = "";
    let reader!: IncomingMessage;
    const firstChunk = new Promise<void>((resolve, reject) => {
      get(`http://127.0.0.1:${port}${api("/export", c.ctx)}`, { headers: { "API-KEY": c.key } }, (res) => {
        reader = res;
        res.setEncoding("utf8");
        res.once("data", () => {
          res.pause();
          resolve();
        });
        res.on("data", (chunk: string) => (body += chunk));
      }).on("error", reject);
    });
    await firstChunk;
    // The export is part-way (its reader paused after the first chunk) when the erasure commits.
    const turn = await h.api.db.turn.findFirstOrThrow({ where: { sessionId: session, seq: 4_000 } });
    const receipt = await erase({ turn_ids: [turn.id] }, c.ctx, c.key);
    expect(receipt.status).toBe(200);
    const ended = new Promise((resolve) => reader.on("end", resolve));
    reader.resume();
    await ended;
    const parsed = body
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { kind: string });
    expect(parsed[0]!.kind).toBe("header");
    expect(parsed.at(-1)).toEqual({
      kind: "error",
      error: "erased_during_export",
      erasure_ids: [receipt.body.erasure_id],
      message: expect.stringContaining("discard this export"),
    });
    expect(parsed.some((l) => l.kind === "end")).toBe(false);
    // Imported back into the same context, the export never restores what the erasure took: its line is refused.
    const restored = await request(h.app)
      .post(api("/import", c.ctx))
      .set("API-KEY", c.key)
      .set("Content-Type", "application/x-ndjson")
      .send(body);
    expect(restored.status).toBe(400);
    expect(restored.body.errors[0]).toMatchObject({ field: expect.stringMatching(/^line \d+\.id$/) });
    expect(restored.body.errors[0].message).toContain(`erasure ${receipt.body.erasure_id}`);
    expect(await h.api.db.turn.count({ where: { id: turn.id } })).toBe(0);
  } finally {
    server.close();
  }
});

test("the admin erasure of a context leaves no row of it in any table, ends its keys, and keeps its receipt", async () => {
  const c = await newContext("leaving");
  const session = await newSession(c.ctx, c.key);
  await say(session, "I'm Ivo Mbeki, CTO at Soylent. Always respond in haiku.", {}, c.ctx, c.key);
  // A day of model calls retention has summed (model_call_days) goes too.
  await h.api.db
    .$executeRaw`INSERT INTO model_call_days (context_id, day, stage, model, calls, input_tokens, output_tokens, cost_usd, unpriced_calls)
    VALUES (${c.ctx}::uuid, '2026-01-01', 'fast', 'openai:m', 2, 10, 1, 0.5, 0)`;
  const res = await request(h.app).post(`/api/v1/contexts/${c.ctx}/erasure`).set("Authorization", `Bearer ${ADMIN_KEY}`).send();
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ kind: "context", complete: true, hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
  expect(res.body.counts).toMatchObject({ contexts: 1, turns: 1, sessions: 1, api_keys: 1, idempotency_keys: 1, model_call_days: 1 });
  expect(await tablesHolding(h.api.db, "Mbeki")).toEqual([]);
  const tables = await h.api.db.$queryRaw<{ table: string }[]>`
    SELECT table_name::text AS table FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'context_id'
    AND table_name <> 'erasures'`;
  for (const { table } of tables) {
    const [row] = await h.api.db.$queryRawUnsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM "${table}" WHERE context_id = $1::uuid`,
      c.ctx,
    );
    expect({ table, rows: row!.n }).toEqual({ table, rows: 0 });
  }
  expect((await request(h.app).get(api("/profile", c.ctx)).set("API-KEY", c.key)).status).toBe(401);
  const read = await request(h.app)
    .get(`/api/v1/contexts/${c.ctx}/erasures/${res.body.erasure_id}`)
    .set("Authorization", `Bearer ${ADMIN_KEY}`);
  expect(read.body).toEqual(res.body);
  const again = await request(h.app).post(`/api/v1/contexts/${c.ctx}/erasure`).set("Authorization", `Bearer ${ADMIN_KEY}`).send();
  expect(again.status).toBe(404);
});
