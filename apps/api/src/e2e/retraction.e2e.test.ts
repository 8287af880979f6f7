// Delete by source over HTTP: a turn's facts, entity and instruction are retracted, with an audit
// record; a retraction sent before the source's extraction commits is recorded at once (pending)
// and its commit writes nothing, however the two race.
import request from "supertest";
import { waitFor } from "@recall/test-support";
import { ADMIN_KEY, startHarness, type Harness } from "../testing/harness";

let h: Harness;
let ctx: string;
let key: string;

beforeAll(async () => {
  // Twenty turns to one session at once are stored one at a time; on a loaded machine the last waited past the
  // default 10 s line and was answered 503. What is tested here is retraction, not the session's wait line.
  h = await startHarness({ RECALL_SESSION_WAIT_MS: "60000" });
  const res = await request(h.app).post("/api/v1/contexts").set("Authorization", `Bearer ${ADMIN_KEY}`).send({ name: "retract" });
  ({ context_id: ctx, api_key: key } = res.body);
});
afterAll(() => h?.close());

test("retracting a turn removes what it taught from reads, keeps an audit row, and is idempotent", async () => {
  const session = await request(h.app).post(`/api/v1/${ctx}/sessions`).set("API-KEY", key).send({});
  const turn = await request(h.app)
    .post(`/api/v1/${ctx}/sessions/${session.body.session_id}/turns`)
    .set("API-KEY", key)
    .send({ role: "user", content: "I'm Alice, CTO at Acme. Always respond in bullet points.", scope: ["org=acme"] });
  expect(turn.body.extraction.status).toBe("committed");
  const profileBefore = await request(h.app)
    .get(`/api/v1/${ctx}/profile`)
    .query({ scope: { org: "acme" } })
    .set("API-KEY", key);
  expect(profileBefore.body.instructions).toHaveLength(1);

  const path = `/api/v1/${ctx}/turns/${turn.body.turn_id}/retract`;
  expect((await request(h.app).post(path).set("API-KEY", key).send({})).body.errors[0].field).toBe("body.reason");
  const res = await request(h.app).post(path).set("API-KEY", key).send({ reason: "user asked to forget" });
  expect(res.status).toBe(200);
  expect(res.body.retracted).toMatchObject({ attributes: 1, relations: 1, instructions: 1 });
  expect(res.body.retracted.entities).toBeGreaterThanOrEqual(2);
  expect(res.body.retraction_id).toEqual(expect.any(String));

  const profile = await request(h.app)
    .get(`/api/v1/${ctx}/profile`)
    .query({ scope: { org: "acme" } })
    .set("API-KEY", key);
  expect(profile.body.instructions).toEqual([]);
  expect(profile.body.entities).toEqual([]);
  const audit = await h.api.db.retraction.findUniqueOrThrow({ where: { id: res.body.retraction_id } });
  expect(audit).toMatchObject({ sourceType: "turn", sourceId: turn.body.turn_id, reason: "user asked to forget" });
  expect(await h.api.db.turn.count({ where: { id: turn.body.turn_id } })).toBe(1);

  const again = await request(h.app).post(path).set("API-KEY", key).send({ reason: "again" });
  expect(again.body).toMatchObject({ retraction_id: null, pending: false, retracted: { attributes: 0, relations: 0, instructions: 0 } });
});

test("an unknown source answers 404", async () => {
  const res = await request(h.app)
    .post(`/api/v1/${ctx}/documents/00000000-0000-4000-8000-000000000000/retract`)
    .set("API-KEY", key)
    .send({ reason: "x" });
  expect(res.status).toBe(404);
});

const INTRO = "I'm Alice, CTO at Acme. Always respond in bullet points.";

/** Every work item of the context finished (nothing queued, running or waiting). */
const settled = async () =>
  (await h.api.db.workItem.count({ where: { contextId: ctx, status: { in: ["queued", "running", "waiting", "failed"] } } })) === 0;

test("20 turns retracted at once after wait: false are never committed: each retraction is pending, and nothing shows", async () => {
  const session = await request(h.app).post(`/api/v1/${ctx}/sessions`).set("API-KEY", key).send({});
  const scope = ["org=racing"];
  const raced = await Promise.all(
    Array.from({ length: 20 }, async () => {
      const turn = await request(h.app)
        .post(`/api/v1/${ctx}/sessions/${session.body.session_id}/turns`)
        .set("API-KEY", key)
        .send({ role: "user", content: INTRO, scope, wait: false });
      expect(turn.status).toBe(202);
      return request(h.app).post(`/api/v1/${ctx}/turns/${turn.body.turn_id}/retract`).set("API-KEY", key).send({ reason: "at once" });
    }),
  );
  // Each retraction is recorded, whether it came before the commit (pending) or after it (counts).
  for (const res of raced) {
    expect(res.status).toBe(200);
    expect(res.body.retraction_id).toEqual(expect.any(String));
    if (!res.body.pending) expect(res.body.retracted.attributes).toBeGreaterThan(0);
  }
  expect(raced.some((r) => r.body.pending)).toBe(true);
  await waitFor(settled, { what: "every turn's pipeline to finish", timeoutMs: 60_000 });
  const profile = await request(h.app)
    .get(`/api/v1/${ctx}/profile`)
    .query({ scope: { org: "racing" } })
    .set("API-KEY", key);
  expect({ entities: profile.body.entities, instructions: profile.body.instructions }).toEqual({ entities: [], instructions: [] });
  const pendingLeft = await h.api.db.retraction.count({ where: { contextId: ctx, pending: true } });
  expect(pendingLeft).toBe(0);
  const live = await h.api.db.assertion.count({
    where: { contextId: ctx, turnId: { in: raced.map((r) => r.body.source_id) }, retractedAt: null },
  });
  expect(live).toBe(0);
});

test("a document retracted before its extraction commits: pending, and its commit writes nothing", async () => {
  const doc = await request(h.app)
    .post(`/api/v1/${ctx}/documents`)
    .set("API-KEY", key)
    .send({ text: "Bruno Diaz is the CFO of Initech.", scope: ["org=doc-race"] });
  expect(doc.status).toBe(202);
  const res = await request(h.app)
    .post(`/api/v1/${ctx}/documents/${doc.body.document_id}/retract`)
    .set("API-KEY", key)
    .send({ reason: "wrong file" });
  expect(res.body).toMatchObject({ pending: true, retraction_id: expect.any(String) });
  // Asked twice while pending: the same record, not a second one.
  const again = await request(h.app)
    .post(`/api/v1/${ctx}/documents/${doc.body.document_id}/retract`)
    .set("API-KEY", key)
    .send({ reason: "again" });
  expect(again.body).toMatchObject({ pending: true, retraction_id: res.body.retraction_id });
  await waitFor(settled, { what: "the document's pipeline to finish", timeoutMs: 60_000 });
  const row = await h.api.db.retraction.findUniqueOrThrow({ where: { id: res.body.retraction_id } });
  expect({ pending: row.pending, applied: row.appliedAt !== null }).toEqual({ pending: false, applied: true });
  expect(await h.api.db.assertion.count({ where: { documentId: doc.body.document_id } })).toBe(0);
});

test("a turn whose only outputs are reviews still pending: its retraction withdraws them and writes its audit row", async () => {
  const reviewed = await request(h.app)
    .post("/api/v1/contexts")
    .set("Authorization", `Bearer ${ADMIN_KEY}`)
    .send({ name: "retract-reviewed", config: { review: "required" } });
  const { context_id: c, api_key: k } = reviewed.body;
  const session = await request(h.app).post(`/api/v1/${c}/sessions`).set("API-KEY", k).send({});
  const turn = await request(h.app)
    .post(`/api/v1/${c}/sessions/${session.body.session_id}/turns`)
    .set("API-KEY", k)
    .send({ role: "user", content: INTRO });
  expect(turn.body.extraction).toMatchObject({ status: "pending_review", pending_reviews: expect.any(Number) });

  const res = await request(h.app).post(`/api/v1/${c}/turns/${turn.body.turn_id}/retract`).set("API-KEY", k).send({ reason: "unsaid" });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ retraction_id: expect.any(String), retracted: { attributes: 0, relations: 0, instructions: 0 } });
  const audit = await h.api.db.retraction.findUniqueOrThrow({ where: { id: res.body.retraction_id } });
  expect(audit).toMatchObject({ contextId: c, sourceType: "turn", sourceId: turn.body.turn_id, reason: "unsaid" });
  expect(audit.summary).toMatchObject({ withdrawnReviews: turn.body.extraction.pending_reviews });
  const pending = await h.api.db.review.count({ where: { contextId: c, subjectId: turn.body.turn_id, status: "pending" } });
  expect(pending).toBe(0);
});
