// Review before commit (docs/review.md), checked from outside: with `review` required nothing a turn says reaches
// /profile until a person approves it (an edit commits edited, with the source's quote kept); a rejected candidate
// never does; approvals out of arrival order still supersede in arrival order; decisions race safely; a retraction
// withdraws what is still pending and an erasure leaves no review behind.
import request from "supertest";
import { startFakeLlmServer, startWebhookReceiver, waitFor, type FakeLlmServer } from "@recall/test-support";
import { ADMIN_KEY, startHarness, type Harness } from "../testing/harness";
import { tablesHolding } from "../testing/text-scan";
import { contextClient, type ContextClient } from "../testing/api-client";

let h: Harness;
let llm: FakeLlmServer;

const NOTHING = { entities: [], attributes: [], relations: [], instructions: [], revocations: [], uncertainties: [] };

beforeAll(async () => {
  // The model behind a local server speaking its wire protocol: it reads documents (turns here are read by the heuristics).
  llm = await startFakeLlmServer();
  llm.respondWith((req) => {
    if (!JSON.stringify(req.body).includes("Frank Castle runs the Madrid office")) return { json: NOTHING };
    const evidence = "Frank Castle runs the Madrid office";
    const fields = { confidence: 0.9, significance: "high", valid_from: null, valid_to: null, evidence } as const;
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
    WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8",
    WEBHOOK_POLL_MS: "100",
  });
});
afterAll(async () => {
  await h?.close();
  await llm?.close();
});

async function reviewedContext(review: unknown): Promise<{ api: ContextClient; contextId: string; apiKey: string }> {
  const res = await request(h.app)
    .post("/api/v1/contexts")
    .set("Authorization", `Bearer ${ADMIN_KEY}`)
    .send({ name: "reviewed", config: { review } });
  expect(res.status).toBe(201);
  const ctx = { contextId: res.body.context_id, apiKey: res.body.api_key };
  return { api: contextClient(h.app, ctx), ...ctx };
}

interface Review {
  review_id: string;
  status: string;
  kind: string;
  memory_category: string | null;
  candidate: Record<string, unknown>;
  quote: string | null;
  span: { start_byte: number; end_byte: number } | null;
  source: { turn_id: string | null; session_id: string | null };
}

async function reviews(api: ContextClient, query = ""): Promise<Review[]> {
  const res = await api.get(`/reviews${query}`);
  expect(res.status).toBe(200);
  return res.body.reviews;
}

const committed = (api: ContextClient, id: string) =>
  waitFor(
    async () => {
      const res = await api.get(`/reviews/${id}`);
      return res.body.status === "committed" ? res.body : undefined;
    },
    { timeoutMs: 20_000, what: "the review to commit" },
  );

const profileText = async (api: ContextClient) => JSON.stringify((await api.get("/profile")).body);

test("with review required nothing reaches /profile until approved; an edit commits edited and keeps the quote; a rejected candidate never does", async () => {
  const { api } = await reviewedContext("required");
  const session = await api.session();
  const content = "I'm Alice, CTO at Acme. Always respond in bullet points.";
  const turn = await api.post(`/sessions/${session}/turns`, { role: "user", content });
  expect(turn.status).toBe(200);
  expect(turn.body.extraction).toMatchObject({ status: "pending_review", pending_reviews: expect.any(Number) });
  expect(turn.body.diff.attributes).toEqual([]);
  const profile = (await api.get("/profile")).body;
  expect(profile.entities).toEqual([]);
  expect(profile.instructions).toEqual([]);

  const pending = await reviews(api);
  expect(pending.length).toBe(turn.body.extraction.pending_reviews);
  for (const r of pending) {
    expect(r.source).toMatchObject({ turn_id: turn.body.turn_id, session_id: session });
    if (r.quote && r.span) expect(Buffer.from(content).subarray(r.span.start_byte, r.span.end_byte).toString()).toBe(r.quote);
  }
  const role = pending.find((r) => r.kind === "attribute");
  const instruction = pending.find((r) => r.kind === "instruction");
  expect(role).toBeDefined();
  expect(instruction).toBeDefined();

  const approved = await api.post(`/reviews/${role!.review_id}/approve`, {
    edit: { value: "Chief Technology Officer" },
    note: "spelled out",
  });
  expect(approved.status).toBe(202);
  expect(approved.body).toMatchObject({
    status: "approved",
    edit: { value: { from: role!.candidate.value, to: "Chief Technology Officer" } },
  });
  const done = await committed(api, role!.review_id);
  expect(done.candidate.value).toBe("Chief Technology Officer");

  const rejected = await api.post(`/reviews/${instruction!.review_id}/reject`, { note: "not a standing rule" });
  expect(rejected.status).toBe(200);
  expect(rejected.body.status).toBe("rejected");

  const after = await profileText(api);
  expect(after).toContain("Chief Technology Officer");
  expect(after).not.toContain("bullet");
  // The committed fact still quotes its source turn.
  const attr = await h.api.db.attribute.findFirstOrThrow({ where: { value: "Chief Technology Officer" } });
  const provenance = await api.get(`/facts/${attr.id}/provenance`);
  expect(provenance.status).toBe(200);
  expect(JSON.stringify(provenance.body)).toContain(turn.body.turn_id);
  expect(JSON.stringify(provenance.body)).toContain(role!.quote!);

  // Decisions on decided reviews: the same one again answers it as it stands; the opposite one is 409.
  expect((await api.post(`/reviews/${role!.review_id}/approve`, {})).status).toBe(202);
  // An edit comes with the approval that commits it, not after.
  const late = await api.post(`/reviews/${role!.review_id}/approve`, { edit: { value: "CEO" } });
  expect(late.status).toBe(409);
  expect(late.body.detail).toMatch(/edit/);
  expect((await api.post(`/reviews/${role!.review_id}/reject`, {})).status).toBe(409);
  expect((await api.post(`/reviews/${instruction!.review_id}/approve`, {})).status).toBe(409);
  expect((await api.post(`/reviews/${instruction!.review_id}/reject`, {})).status).toBe(200);
  expect((await reviews(api, "?status=rejected")).map((r) => r.review_id)).toEqual([instruction!.review_id]);
  expect(await profileText(api)).not.toContain("bullet");
});

test("approved out of arrival order, the later turn's value is still the current one", async () => {
  const { api, contextId } = await reviewedContext("required");
  const session = await api.session();
  const first = await api.turn(session, "My name is Alice Smith and I live in Paris.", []);
  const second = await api.turn(session, "My name is Alice Smith and I live in London.", []);
  const livesIn = async (turnId: string) =>
    (await reviews(api, `?turn_id=${turnId}&kind=relation`)).find((r) => r.candidate.verb === "lives_in")!;
  const paris = await livesIn(first.turn_id);
  const london = await livesIn(second.turn_id);
  expect([paris.candidate.object, london.candidate.object]).toEqual(["Paris", "London"]);
  // The later turn's first, then the earlier one's.
  expect((await api.post(`/reviews/${london.review_id}/approve`, {})).status).toBe(202);
  await committed(api, london.review_id);
  expect((await api.post(`/reviews/${paris.review_id}/approve`, {})).status).toBe(202);
  await committed(api, paris.review_id);
  const rows = await h.api.db.relation.findMany({ where: { contextId, predicate: "lives_in" } });
  const cities = await h.api.db.entity.findMany({ where: { id: { in: rows.map((r) => r.objectId) } } });
  const byCity = new Map(rows.map((r) => [cities.find((c) => c.id === r.objectId)!.name, r]));
  expect(byCity.get("London")).toMatchObject({ validTo: null, supersededById: null });
  expect(byCity.get("Paris")!.supersededById).toBe(byCity.get("London")!.id);
});

test("categories: only identity candidates wait; others commit at once", async () => {
  const { api } = await reviewedContext({ categories: ["identity"] });
  const session = await api.session();
  const turn = await api.turn(session, "I'm Alice, CTO at Acme. Always respond in bullet points.", []);
  expect(turn.extraction.status).toBe("pending_review");
  const held = await reviews(api);
  expect(held.length).toBeGreaterThan(0);
  expect(held.every((r) => r.memory_category === "identity")).toBe(true);
  const profile = (await api.get("/profile")).body;
  expect(JSON.stringify(profile.instructions)).toContain("bullet");
  expect(JSON.stringify(profile)).not.toContain("CTO");
});

test("bulk decisions: by filter at most `limit` a call with the rest counted; named ids of another context are 404 and decide nothing", async () => {
  const { api } = await reviewedContext("required");
  const other = await reviewedContext("required");
  const session = await api.session();
  const one = await api.turn(session, "I'm Alice, CTO at Acme. Always respond in bullet points.", []);
  const two = await api.turn(session, "My name is Bob Jones and I live in Oslo.", []);
  const all = await reviews(api);
  const ofOne = all.filter((r) => r.source.turn_id === one.turn_id);
  expect(ofOne.length).toBeGreaterThan(1);

  const first = await api.post("/reviews/bulk-approve", { filter: { turn_id: one.turn_id }, limit: 1 });
  expect(first.status).toBe(200);
  expect(first.body).toMatchObject({ decided: [ofOne[0]!.review_id], remaining: ofOne.length - 1 });
  const rest = await api.post("/reviews/bulk-approve", { filter: { turn_id: one.turn_id } });
  expect(rest.body).toMatchObject({ decided: ofOne.slice(1).map((r) => r.review_id), remaining: 0 });
  for (const r of ofOne) await committed(api, r.review_id);
  expect(await profileText(api)).toContain("bullet");

  const otherSession = await other.api.session();
  await other.api.turn(otherSession, "My name is Carol White and I live in Rome.", []);
  const foreign = (await reviews(other.api))[0]!;
  const ofTwo = (await reviews(api)).filter((r) => r.source.turn_id === two.turn_id);
  const mixed = await api.post("/reviews/bulk-reject", { review_ids: [ofTwo[0]!.review_id, foreign.review_id] });
  expect(mixed.status).toBe(404);
  expect(mixed.body.errors[0].field).toBe("body.review_ids");
  expect((await api.get(`/reviews/${ofTwo[0]!.review_id}`)).body.status).toBe("pending");
  expect((await other.api.get(`/reviews/${foreign.review_id}`)).body.status).toBe("pending");
  expect((await api.get(`/reviews/${foreign.review_id}`)).status).toBe(404);

  const rejected = await api.post("/reviews/bulk-reject", { review_ids: ofTwo.map((r) => r.review_id), note: "not now" });
  expect(rejected.body).toMatchObject({ decided: ofTwo.map((r) => r.review_id), unchanged: [], refused: [], remaining: 0 });
  const again = await api.post("/reviews/bulk-approve", { review_ids: [...ofTwo.map((r) => r.review_id), ofOne[0]!.review_id] });
  expect(again.body).toMatchObject({ decided: [], unchanged: [ofOne[0]!.review_id] });
  expect(again.body.refused).toHaveLength(ofTwo.length);
  expect(await reviews(api)).toEqual([]);
  expect(await profileText(api)).not.toContain("Oslo");
});

test("approve and reject of one review at once: exactly one wins, the other is told so", async () => {
  const { api } = await reviewedContext("required");
  const session = await api.session();
  await api.turn(session, "My name is Dana Scully and I live in Lisbon.", []);
  const targets = await reviews(api);
  for (const target of targets) {
    const [approve, reject] = await Promise.all([
      api.post(`/reviews/${target.review_id}/approve`, {}),
      api.post(`/reviews/${target.review_id}/reject`, {}),
    ]);
    const statuses = [approve.status, reject.status].sort();
    expect([
      [202, 409],
      [200, 409],
    ]).toContainEqual(statuses);
    const final = (await api.get(`/reviews/${target.review_id}`)).body.status;
    expect(approve.status === 202 ? ["approved", "committed"] : ["rejected"]).toContain(final);
  }
});

test("edits are checked like candidates: a field the kind has not, or a blank value, is 400 naming it and decides nothing", async () => {
  const { api } = await reviewedContext("required");
  const session = await api.session();
  await api.turn(session, "I'm Alice, CTO at Acme.", []);
  const attribute = (await reviews(api, "?kind=attribute"))[0]!;
  const unknown = await api.post(`/reviews/${attribute.review_id}/approve`, { edit: { colour: "red" } });
  expect(unknown.status).toBe(400);
  expect(unknown.body.errors[0].field).toBe("body.edit.colour");
  const blank = await api.post(`/reviews/${attribute.review_id}/approve`, { edit: { value: "  " } });
  expect(blank.status).toBe(400);
  expect(blank.body.errors[0].field).toBe("body.edit.value");
  const required = await api.post(`/reviews/${attribute.review_id}/approve`, { edit: { value: null } });
  expect(required.status).toBe(400);
  expect(required.body.errors[0].field).toBe("body.edit.value");
  for (const nameless of ["!!!", "???", "\u200b"]) {
    const renamed = await api.post(`/reviews/${attribute.review_id}/approve`, { edit: { entity: nameless } });
    expect([renamed.status, renamed.body.errors[0].field]).toEqual([400, "body.edit.entity"]);
  }
  expect((await api.get(`/reviews/${attribute.review_id}`)).body.status).toBe("pending");
  expect((await api.post("/reviews/bulk-approve", {})).status).toBe(400);
  // The largest list: 500 ids is taken (none of them this context's: 404, nothing decided), 501 is refused.
  const ids = (n: number) => Array.from({ length: n }, () => crypto.randomUUID());
  const most = await api.post("/reviews/bulk-approve", { review_ids: ids(500) });
  expect([most.status, most.body.errors[0].field]).toEqual([404, "body.review_ids"]);
  const tooMany = await api.post("/reviews/bulk-reject", { review_ids: ids(501) });
  expect([tooMany.status, tooMany.body.errors[0].field]).toEqual([400, "body.review_ids"]);
  expect((await api.get("/reviews?status=maybe")).body.errors[0].field).toBe("query.status");
  expect((await api.get("/reviews/not-a-uuid")).status).toBe(400);
  const badRule = await request(h.app)
    .post("/api/v1/contexts")
    .set("Authorization", `Bearer ${ADMIN_KEY}`)
    .send({ name: "x", config: { review: { categories: ["secrets"] } } });
  expect(badRule.status).toBe(400);
  expect(badRule.body.errors[0].field).toMatch(/^body\.config\.review/);
});

test("a retraction withdraws the turn's open reviews; an erasure leaves no review or review commit of the turn", async () => {
  const { api, contextId } = await reviewedContext("required");
  const session = await api.session();
  const retracted = await api.turn(session, "My name is Eve Moss and I live in Prague.", []);
  const erased = await api.turn(session, "My name is Eve Moss and I work at Globex.", []);
  const ofRetracted = await reviews(api, `?turn_id=${retracted.turn_id}`);
  await api.post(`/reviews/${ofRetracted[0]!.review_id}/approve`, {});
  await committed(api, ofRetracted[0]!.review_id);
  const retraction = await api.post(`/turns/${retracted.turn_id}/retract`, { reason: "wrong person" });
  expect(retraction.status).toBe(200);
  const after = await reviews(api, `?turn_id=${retracted.turn_id}&status=withdrawn`);
  expect(after.map((r) => r.review_id).sort()).toEqual(
    ofRetracted
      .slice(1)
      .map((r) => r.review_id)
      .sort(),
  );
  expect((await api.post(`/reviews/${ofRetracted[1]!.review_id}/approve`, {})).status).toBe(409);

  const ofErased = await reviews(api, `?turn_id=${erased.turn_id}`);
  await api.post(`/reviews/${ofErased[0]!.review_id}/approve`, { edit: ofErased[0]!.kind === "relation" ? { object: "Globex Corp" } : {} });
  await committed(api, ofErased[0]!.review_id);
  const erasure = await api.post("/erasures", { turn_ids: [erased.turn_id] });
  expect(erasure.status).toBe(200);
  expect(erasure.body.counts.reviews).toBe(ofErased.length);
  const db = h.api.db;
  expect(await db.review.count({ where: { contextId, subjectId: erased.turn_id } })).toBe(0);
  expect(await db.reviewCommit.count({ where: { contextId, subjectId: erased.turn_id } })).toBe(0);
  expect(
    await db.workItem.count({
      where: { contextId, subjectType: "review", subjectId: { notIn: (await db.reviewCommit.findMany()).map((c) => c.id) } },
    }),
  ).toBe(0);
  expect((await api.get(`/reviews/${ofErased[0]!.review_id}`)).status).toBe(404);
  expect(await tablesHolding(db, "Globex")).toEqual([]);
});

test("a document's candidates wait too, with spans into the whole document", async () => {
  const { api } = await reviewedContext("required");
  const text = "# Team\n\nSome preamble about the team and its history.\n\n## People\n\nFrank Castle runs the Madrid office.\n";
  const posted = await api.post("/documents", { text, format: "markdown" });
  expect(posted.status).toBe(202);
  const documentId = posted.body.document_id;
  const status = await waitFor(
    async () => {
      const res = await api.get(`/documents/${documentId}/status`);
      return ["committed", "failed"].includes(res.body.state) ? res.body : undefined;
    },
    { timeoutMs: 30_000, what: "the document's extraction" },
  );
  expect(status.state).toBe("committed");
  const held = await reviews(api, `?document_id=${documentId}`);
  expect(status.candidates.pending_review).toBe(held.length);
  expect(held.length).toBeGreaterThan(0);
  for (const r of held) {
    expect(r.source).toMatchObject({ type: "document", document_id: documentId });
    if (r.quote && r.span) expect(Buffer.from(text).subarray(r.span.start_byte, r.span.end_byte).toString()).toBe(r.quote);
  }
  expect(await profileText(api)).not.toContain("Madrid");
  await api.post("/reviews/bulk-approve", { filter: { document_id: documentId } });
  for (const r of held) await committed(api, r.review_id);
  expect(await profileText(api)).toContain("Frank");
});

test("a commit that holds candidates announces review.pending once, naming the turn and how many wait", async () => {
  const receiver = await startWebhookReceiver();
  try {
    const { api } = await reviewedContext("required");
    const hook = await api.post("/webhooks", { url: receiver.url, events: ["review.pending"] });
    expect(hook.status).toBe(201);
    const session = await api.session();
    const turn = await api.turn(session, "I'm Alice, CTO at Acme.", []);
    const held = turn.extraction as { status: string; pending_reviews: number };
    const event = await waitFor(async () => receiver.received.find((r) => r.body.type === "review.pending"), {
      what: "the review.pending event",
    });
    expect(event.body.data).toEqual({ subject_type: "turn", turn_id: turn.turn_id, session_id: session, pending: held.pending_reviews });
    // Approving commits without announcing another pending review.
    await api.post("/reviews/bulk-approve", { filter: {} });
    await waitFor(async () => ((await reviews(api, "?status=committed")).length === held.pending_reviews ? true : undefined), {
      what: "the approvals to commit",
    });
    expect(receiver.received.filter((r) => r.body.type === "review.pending")).toHaveLength(1);
  } finally {
    await receiver.close();
  }
});

test("review turned on for an existing context holds what is said from then on; turned off, new inputs commit at once", async () => {
  const { api, contextId } = await reviewedContext({ kinds: ["uncertainty"] });
  const config = (body: object) =>
    request(h.app).post(`/api/v1/contexts/${contextId}/config`).set("Authorization", `Bearer ${ADMIN_KEY}`).send(body);
  const session = await api.session();
  expect((await api.turn(session, "My name is Gina Park and I live in Seoul.", [])).extraction.status).toBe("committed");

  // Two changes at once both land.
  const [on, scoped] = await Promise.all([config({ review: "required" }), config({ require_scope: false, purpose: "support" })]);
  expect([on.status, scoped.status]).toEqual([200, 200]);
  const now = await config({ max_tokens: 5000 });
  expect(now.body.config).toEqual({ review: "required", require_scope: false, purpose: "support", max_tokens: 5000 });
  expect((await api.turn(session, "My name is Gina Park and I live in Busan.", [])).extraction.status).toBe("pending_review");

  const off = await config({ review: null, max_tokens: null });
  expect(off.body.config).toEqual({ require_scope: false, purpose: "support" });
  expect((await api.turn(session, "My name is Gina Park and I work at Hanbit.", [])).extraction.status).toBe("committed");
  // What was held stays for a decision.
  expect((await reviews(api)).length).toBeGreaterThan(0);

  const bad = await config({ review: "sometimes" });
  expect(bad.status).toBe(400);
  expect(bad.body.errors[0].field).toMatch(/^body\.review/);
  expect((await config({})).status).toBe(400);
  const missing = await request(h.app)
    .post("/api/v1/contexts/00000000-0000-4000-8000-000000000000/config")
    .set("Authorization", `Bearer ${ADMIN_KEY}`)
    .send({ review: "required" });
  expect(missing.status).toBe(404);
  expect((await request(h.app).post(`/api/v1/contexts/${contextId}/config`).set("API-KEY", "rk_nope").send({})).status).toBe(401);
});

test("turns imported in a batch (extracted in windows) wait for review too, and a session's reviews are approved together", async () => {
  const { api } = await reviewedContext("required");
  const session = await api.session();
  const contents = ["My name is Hana Kim and I live in Kyoto.", "My name is Ivan Petrov and I live in Minsk.", "Nice weather today."];
  const batch = await api.post(`/sessions/${session}/turns/batch`, { turns: contents.map((content) => ({ role: "user", content })) });
  expect(batch.status).toBe(202);
  const done = await waitFor(
    async () => {
      const res = await api.get(`/sessions/${session}/turn-batches/${batch.body.batch_id}`);
      return res.body.state === "done" ? res.body : undefined;
    },
    { timeoutMs: 60_000, what: "the batch" },
  );
  expect(done.counts).toMatchObject({ committed: 3, failed: 0 });
  const held = await reviews(api, `?session_id=${session}`);
  expect(new Set(held.map((r) => r.source.turn_id)).size).toBe(2);
  expect(await profileText(api)).not.toContain("Kyoto");
  const approved = await api.post("/reviews/bulk-approve", { filter: { session_id: session } });
  expect(approved.body).toMatchObject({ remaining: 0 });
  expect(approved.body.decided).toHaveLength(held.length);
  for (const r of held) await committed(api, r.review_id);
  const profile = await profileText(api);
  expect(profile).toContain("Kyoto");
  expect(profile).toContain("Minsk");
});

test("an export carries every review in holding order; imported, pending ones wait to be decided there, and an approved one whose commit had not run commits", async () => {
  const { api } = await reviewedContext("required");
  const session = await api.session();
  await api.turn(session, "I'm Alice, CTO at Acme. Always respond in bullet points.", []);
  await api.turn(session, "My name is Bob Jones and I live in Oslo.", []);
  const held = await reviews(api);
  const role = held.find((r) => r.kind === "attribute" && r.candidate.value === "CTO")!;
  const instruction = held.find((r) => r.kind === "instruction")!;
  expect(
    (await api.post(`/reviews/${role.review_id}/approve`, { edit: { value: "Chief Technology Officer" }, note: "spelled out" })).status,
  ).toBe(202);
  await committed(api, role.review_id);
  expect((await api.post(`/reviews/${instruction.review_id}/reject`, { note: "not a rule" })).status).toBe(200);
  const pending = await reviews(api);
  expect(pending.length).toBe(held.length - 2);

  const exported = await api.get("/export");
  expect(exported.status).toBe(200);
  const lines = exported.text.trim().split("\n");
  // Every review, in holding order (as GET …/reviews lists them), whatever its status.
  const reviewLines = lines.map((l) => JSON.parse(l)).filter((row) => row.kind === "review");
  expect(reviewLines.map((row) => row.id)).toEqual(held.map((r) => r.review_id));
  // Filtered, a review goes with its candidate: seen in a scope that sees its (unscoped) turn, absent before its time.
  const kindsOf = (text: string) =>
    text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).kind as string);
  const scoped = await api.get("/export?scope[org]=acme");
  expect(kindsOf(scoped.text).filter((k) => k === "review")).toHaveLength(held.length);
  const later = await api.get(`/export?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`);
  expect(later.status).toBe(200);
  expect(kindsOf(later.text).filter((k) => k === "review" || k === "candidate")).toEqual([]);

  const importInto = (target: { contextId: string; apiKey: string }, body: string) =>
    request(h.app)
      .post(`/api/v1/${target.contextId}/import`)
      .set("API-KEY", target.apiKey)
      .set("Content-Type", "application/x-ndjson")
      .send(body);

  const b = await reviewedContext("required");
  const first = await importInto(b, exported.text);
  expect(first.status).toBe(200);
  expect(first.body.counts.review).toEqual({ read: held.length, created: held.length });
  // The same reviews (ids mapped) in the same order, each as it stood: pending, committed with its edit, rejected with its note.
  const strip = (r: Review) => ({
    ...r,
    review_id: undefined,
    source: { ...r.source, turn_id: undefined, session_id: undefined },
  });
  expect((await reviews(b.api)).map(strip)).toEqual(pending.map(strip));
  const all = async (client: ContextClient) => [
    ...(await reviews(client, "?status=committed")),
    ...(await reviews(client, "?status=rejected")),
  ];
  expect((await all(b.api)).map((r) => ({ ...strip(r), committed_at: undefined }))).toEqual(
    (await all(api)).map((r) => ({ ...strip(r), committed_at: undefined })),
  );
  expect(await profileText(b.api)).toContain("Chief Technology Officer");
  expect(await profileText(b.api)).not.toContain("Oslo");

  // Decided where it landed: approving an imported pending review commits it there, with its source's quote.
  const aboutOslo = (r: Review) => r.kind !== "entity" && JSON.stringify(r.candidate).includes("Oslo");
  const oslo = (await reviews(b.api)).find(aboutOslo)!;
  expect((await b.api.post(`/reviews/${oslo.review_id}/approve`)).status).toBe(202);
  await committed(b.api, oslo.review_id);
  expect(await profileText(b.api)).toContain("Oslo");
  // A second import of the same export creates nothing and commits nothing twice.
  const again = await importInto(b, exported.text);
  expect(again.body.counts.review).toEqual({ read: held.length, created: 0 });
  expect((await reviews(b.api, "?status=approved")).length).toBe(0);

  // An export taken while approvals' commits were still queued: those reviews (and their candidates) say approved.
  // 501 of them (the Oslo one and 500 copies of it), so the import commits them in two pages of at most 500.
  const inFlight = pending.find(aboutOslo)!;
  const line = lines.find((l) => JSON.parse(l).id === inFlight.review_id)!;
  const candidateId = JSON.parse(line).candidate_id;
  const copies = Array.from({ length: 500 }, (_, i) => ({ review: crypto.randomUUID(), candidate: crypto.randomUUID(), i }));
  const approvedExport = lines
    .flatMap((l) => {
      const row = JSON.parse(l);
      if (row.kind === "review" && row.id === inFlight.review_id) {
        const approved = { ...row, status: "approved", decided_at: row.created_at };
        return [approved, ...copies.map((c) => ({ ...approved, id: c.review, candidate_id: c.candidate }))].map((r) => JSON.stringify(r));
      }
      if (row.kind === "candidate" && row.id === candidateId) {
        const approved = { ...row, status: "approved" };
        // Each copy about a person of its own: one fact group each, as 500 different inputs' facts would be.
        const about = (i: number) =>
          row.payload.subject ? { subject: `${row.payload.subject} ${i}` } : { entity: `${row.payload.entity} ${i}` };
        const copy = (c: (typeof copies)[number]) => ({
          ...approved,
          id: c.candidate,
          ordinal: 1_000 + c.i,
          payload: { ...row.payload, ...about(c.i) },
        });
        return [approved, ...copies.map(copy)].map((r) => JSON.stringify(r));
      }
      return [l];
    })
    .join("\n");
  const c = await reviewedContext("required");
  expect((await importInto(c, approvedExport)).status).toBe(200);
  await waitFor(async () => ((await reviews(c.api, "?status=approved")).length === 0 ? true : undefined), {
    timeoutMs: 60_000,
    what: "the imported approvals to commit",
  });
  const landed = (await reviews(c.api, "?status=committed&limit=200")).filter(aboutOslo);
  expect(landed.length).toBeGreaterThan(100);
  expect(landed[0]!.source.turn_id).not.toBe(inFlight.source.turn_id);
  expect(await reviews(c.api, "?status=withdrawn")).toEqual([]);
  expect(await profileText(c.api)).toContain("Oslo");

  // A review line with a status Recall does not have is refused, naming its line and field.
  const at = lines.findIndex((l) => JSON.parse(l).kind === "review");
  const bad = lines.map((l, i) => (i === at ? JSON.stringify({ ...JSON.parse(l), status: "held" }) : l)).join("\n");
  const d = await reviewedContext("required");
  const refused = await importInto(d, bad);
  expect({ status: refused.status, fields: refused.body.errors?.map((e: { field: string }) => e.field) }).toEqual({
    status: 400,
    fields: [`line ${at + 1}.status`],
  });
});

test("a new version of a document retires the old one only once its reviews are decided: the old facts stay while it waits", async () => {
  const { api } = await reviewedContext("required");
  const text = "# Team\n\nFrank Castle runs the Madrid office.\n";
  const post = async (body: string) => {
    const posted = await api.post("/documents", { text: body, format: "markdown", source: { type: "wiki", external_id: "team-page" } });
    expect(posted.status).toBe(202);
    const documentId: string = posted.body.document_id;
    await waitFor(async () => ((await api.get(`/documents/${documentId}/status`)).body.state === "committed" ? true : undefined), {
      timeoutMs: 30_000,
      what: "the document's extraction",
    });
    return { documentId, held: await reviews(api, `?document_id=${documentId}`) };
  };
  const v1 = await post(text);
  await api.post("/reviews/bulk-approve", { filter: { document_id: v1.documentId } });
  for (const r of v1.held) await committed(api, r.review_id);
  expect(await profileText(api)).toContain("head of the Madrid office");

  const retractionOf = async (older: string, newer: string) =>
    (await api.get(`/documents/${newer}/versions`)).body.versions.find((v: { document_id: string }) => v.document_id === older)
      .retraction_id;
  const retired = (older: string, newer: string) =>
    waitFor(async () => (await retractionOf(older, newer)) ?? undefined, { timeoutMs: 20_000, what: "the older version's retirement" });

  // The second version restates the role: held, and the first version's facts stay though its commit is done.
  const v2 = await post(`${text}\nThe office opened in 2019.\n`);
  const restated = v2.held.find((r) => r.kind === "attribute")!;
  expect(restated.candidate.value).toBe("head of the Madrid office");
  expect(await retractionOf(v1.documentId, v2.documentId)).toBeNull();
  expect(await profileText(api)).toContain("head of the Madrid office");
  // Approved and committed: the first version is retired, and the role lives on in the second version's rows.
  await api.post(`/reviews/${restated.review_id}/approve`);
  await committed(api, restated.review_id);
  await retired(v1.documentId, v2.documentId);
  const role = JSON.parse(await profileText(api)).entities.flatMap((e: { attributes: { value: string; id: string }[] }) => e.attributes);
  const current = role.find((a: { value: string }) => a.value === "head of the Madrid office");
  expect((await api.get(`/facts/${current.id}/provenance`)).body.source).toMatchObject({ id: v2.documentId });

  // The third restates it too, and its review is rejected: the second version is retired then, and the role ends.
  const v3 = await post(`${text}\nThe office opened in 2020.\n`);
  const again = v3.held.find((r) => r.kind === "attribute")!;
  expect(await retractionOf(v2.documentId, v3.documentId)).toBeNull();
  expect(await profileText(api)).toContain("head of the Madrid office");
  expect((await api.post(`/reviews/${again.review_id}/reject`)).status).toBe(200);
  await retired(v2.documentId, v3.documentId);
  await waitFor(async () => (!(await profileText(api)).includes("head of the Madrid office") ? true : undefined), {
    what: "the retired version's fact to end",
  });
});
