// POST /facts under hostile load (issue 21): a cap on items per write, answered 400 naming the
// section; all or nothing, never an error once the write is stored (a stage that fails in the
// request is finished by a worker), so an Idempotency-Key retry replays the first answer rather
// than writing twice; parallel writes at the cap all land once. Failures are real Postgres
// errors, raised by a trigger the test arms and disarms, not a stand-in for the database.
import request from "supertest";
import { auditExactlyOnce, waitFor } from "@recall/test-support";
import { startHarness, type Harness } from "../testing/harness";
import { createContext, type ContextHandle } from "../testing/api-client";

const CAP = 20;
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ RECALL_FACT_WRITE_MAX_ITEMS: String(CAP), RECALL_FACT_WRITE_CONCURRENCY: "2" });
  await h.api.db.$executeRawUnsafe(`CREATE TABLE test_faults (name text PRIMARY KEY)`);
  await h.api.db.$executeRawUnsafe(`
    CREATE FUNCTION test_fault() RETURNS trigger AS $$
    BEGIN
      IF NEW.value LIKE 'explodes%' AND EXISTS (SELECT 1 FROM test_faults WHERE name = TG_ARGV[0]) THEN
        RAISE EXCEPTION 'test fault: %', TG_ARGV[0];
      END IF;
      RETURN NEW;
    END $$ LANGUAGE plpgsql`);
  // The commit inserts attributes; truth maintenance closes the older value (an update of it).
  await h.api.db.$executeRawUnsafe(
    `CREATE TRIGGER fault_commit BEFORE INSERT ON attributes FOR EACH ROW EXECUTE FUNCTION test_fault('commit')`,
  );
  await h.api.db.$executeRawUnsafe(
    `CREATE TRIGGER fault_truth BEFORE UPDATE ON attributes FOR EACH ROW EXECUTE FUNCTION test_fault('truth')`,
  );
});

afterAll(async () => {
  await h?.close();
});

const arm = (name: string) => h.api.db.$executeRaw`INSERT INTO test_faults (name) VALUES (${name})`;
const disarm = (name: string) => h.api.db.$executeRaw`DELETE FROM test_faults WHERE name = ${name}`;

const attribute = (entity: string, key: string, value: string) => ({
  entity,
  entity_type: "person",
  key,
  value,
  memory_category: "identity",
});

function post(ctx: ContextHandle, body: object, idempotencyKey?: string) {
  const req = request(h.app).post(`/api/v1/${ctx.contextId}/facts`).set("API-KEY", ctx.apiKey);
  return (idempotencyKey ? req.set("Idempotency-Key", idempotencyKey) : req).send(body);
}

/** Nothing lost, nothing twice, nothing left half-done, in Postgres. */
async function expectClean(contextId: string) {
  const audit = await auditExactlyOnce(h.api.db, contextId);
  expect({
    duplicateAssertions: audit.duplicateAssertions,
    duplicateOutbox: audit.duplicateOutbox,
    itemsSucceededTwice: audit.itemsSucceededTwice,
    unfinishedItems: audit.unfinishedItems,
  }).toEqual({ duplicateAssertions: [], duplicateOutbox: [], itemsSucceededTwice: [], unfinishedItems: [] });
  const orphaned = await h.api.db.knowledgeCandidate.count({ where: { contextId, status: { not: "committed" } } });
  expect(orphaned).toBe(0);
}

const allSucceeded = (contextId: string) => async () =>
  (await h.api.db.workItem.count({ where: { contextId, status: { not: "succeeded" } } })) === 0;

test("more items than RECALL_FACT_WRITE_MAX_ITEMS is 400 naming the largest section, and stores nothing", async () => {
  const ctx = await createContext(h.app, "cap");
  const attributes = Array.from({ length: CAP - 5 }, (_, i) => attribute(`P${i}`, "role", "x"));
  const entities = Array.from({ length: 6 }, (_, i) => ({ name: `E${i}`, type: "person", memory_category: "identity" }));
  const res = await post(ctx, { scope: [], attributes, entities });
  expect({ status: res.status, type: res.type, field: res.body.errors?.[0]?.field }).toEqual({
    status: 400,
    type: "application/problem+json",
    field: "body.attributes",
  });
  expect(res.body.detail).toMatch(new RegExp(`at most ${CAP} items .*RECALL_FACT_WRITE_MAX_ITEMS.*has ${CAP + 1}`));
  expect(await h.api.db.factWrite.count({ where: { contextId: ctx.contextId } })).toBe(0);
  expect((await post(ctx, { scope: [], attributes: attributes.slice(0, CAP) })).status).toBe(201);
});

test("a commit that fails in the request answers 202, a worker commits it, and a retry with the key replays the answer", async () => {
  const ctx = await createContext(h.app, "commit-fails");
  const body = { scope: [], attributes: [attribute("Dana", "role", "explodes-CTO"), attribute("Dana", "team", "explodes-core")] };
  await arm("commit");
  const first = await post(ctx, body, "write-1");
  await disarm("commit");
  expect(first.status).toBe(202);
  expect(first.body).toMatchObject({ status: "pending", work_item_id: expect.any(String), fact_write_id: expect.any(String) });
  const replay = await post(ctx, body, "write-1");
  expect({ status: replay.status, body: replay.body, replayed: replay.headers["idempotent-replayed"] }).toEqual({
    status: 202,
    body: first.body,
    replayed: "true",
  });
  await waitFor(allSucceeded(ctx.contextId), { what: "the worker to finish the write", timeoutMs: 30_000 });
  expect(await h.api.db.factWrite.count({ where: { contextId: ctx.contextId } })).toBe(1);
  expect(await h.api.db.attribute.count({ where: { contextId: ctx.contextId } })).toBe(2);
  await expectClean(ctx.contextId);
});

test("truth maintenance that fails after the commit answers 201 with it pending, and a worker applies it", async () => {
  const ctx = await createContext(h.app, "truth-fails");
  expect((await post(ctx, { scope: [], attributes: [attribute("Eve", "role", "explodes-CFO")] })).status).toBe(201);
  await arm("truth");
  const second = await post(ctx, { scope: [], attributes: [attribute("Eve", "role", "CEO")] }, "write-2");
  await disarm("truth");
  expect(second.status).toBe(201);
  expect(second.body.committed.attribute_ids).toHaveLength(1);
  expect(second.body.truth_maintenance).toMatchObject({ status: "pending", superseded: [] });
  expect((await post(ctx, { scope: [], attributes: [attribute("Eve", "role", "CEO")] }, "write-2")).body).toEqual(second.body);
  await waitFor(allSucceeded(ctx.contextId), { what: "the worker to apply truth maintenance", timeoutMs: 30_000 });
  const state = await request(h.app).post(`/api/v1/${ctx.contextId}/state`).set("API-KEY", ctx.apiKey).send({ scope: [] });
  expect(state.body.facts.map((f: { value: string }) => f.value)).toEqual(["CEO"]);
  await expectClean(ctx.contextId);
});

test("ten parallel writes at the cap each land once, in full", async () => {
  const ctx = await createContext(h.app, "parallel");
  // Two run at a time; one that waits too long for its turn is a 503 with Retry-After (a loaded machine), which a
  // client answers by sending it again under its key, as this one does.
  const writeOnce = async (w: number) => {
    const body = { scope: [], attributes: Array.from({ length: CAP }, (_, i) => attribute(`S${w}-${i % 5}`, `k${i}`, `v${w}.${i}`)) };
    for (;;) {
      const answer = await post(ctx, body, `p-${w}`);
      if (answer.status !== 503) return answer;
      expect(answer.headers["retry-after"]).toBeDefined();
    }
  };
  const answers = await Promise.all(Array.from({ length: 10 }, (_, w) => writeOnce(w)));
  expect(answers.map((a) => a.status)).toEqual(Array(10).fill(201));
  expect(await h.api.db.attribute.count({ where: { contextId: ctx.contextId } })).toBe(10 * CAP);
  await waitFor(allSucceeded(ctx.contextId), { what: "every write's items to finish" });
  await expectClean(ctx.contextId);
});
