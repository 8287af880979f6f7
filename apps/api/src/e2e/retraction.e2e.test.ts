// Delete by source over HTTP: a turn's facts, entity and instruction are retracted, with an audit record.
import request from "supertest";
import { ADMIN_KEY, startHarness, type Harness } from "../testing/harness";

let h: Harness;
let ctx: string;
let key: string;

beforeAll(async () => {
  h = await startHarness();
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
  expect(again.body).toMatchObject({ retraction_id: null, retracted: { attributes: 0, relations: 0, instructions: 0 } });
});

test("an unknown source answers 404", async () => {
  const res = await request(h.app)
    .post(`/api/v1/${ctx}/documents/00000000-0000-4000-8000-000000000000/retract`)
    .set("API-KEY", key)
    .send({ reason: "x" });
  expect(res.status).toBe(404);
});
