// End to end through all four queues on real Postgres and Redis: a document whose
// extraction goes through the real OpenAI SDK against a local wire-protocol server,
// and an interactive turn finished by the heuristic stage.
import request from "supertest";
import { startWorkers } from "@recall/worker/runtime";
import { startFakeLlmServer, waitFor, type FakeLlmServer } from "@recall/test-support";
import { ADMIN_KEY, startHarness, type Harness } from "../testing/harness";
import { scopeOf } from "@recall/memory";

let h: Harness;
let llm: FakeLlmServer;
let contextId: string;
let apiKey: string;

beforeAll(async () => {
  llm = await startFakeLlmServer();
  h = await startHarness({ RECALL_FAST_MODEL: "openai-compatible:test-fast", OPENAI_BASE_URL: llm.openaiBaseUrl });
  const res = await request(h.app).post("/api/v1/contexts").set("Authorization", `Bearer ${ADMIN_KEY}`).send({ name: "acme" });
  expect(res.status).toBe(201);
  ({ context_id: contextId, api_key: apiKey } = res.body);
});

afterAll(async () => {
  await h?.close();
  await llm?.close();
});

const DOC = "Recall stores memory in Postgres. The ingest API depends on Redis for its queues.";

test("a document goes through every stage and is committed with spans, facts and a processed outbox row", async () => {
  llm.script({
    json: {
      entities: [
        { name: "Recall", type: "component", memory_category: "knowledge", aliases: [] },
        { name: "Postgres", type: "platform", memory_category: "knowledge", aliases: [] },
      ],
      attributes: [],
      relations: [
        {
          subject: "Recall",
          verb: "stores_in",
          object: "Postgres",
          memory_category: "knowledge",
          evidence: "Recall stores memory in Postgres",
          confidence: 0.9,
          significance: "high",
          valid_from: null,
          valid_to: null,
        },
        {
          subject: "ingest API",
          verb: "depends_on",
          object: "Redis",
          memory_category: "knowledge",
          evidence: "depends on Redis for its queues",
          confidence: 0.8,
          significance: "medium",
          valid_from: null,
          valid_to: null,
        },
      ],
      instructions: [],
      revocations: [],
      uncertainties: [],
    },
    usage: { inputTokens: 900, outputTokens: 120 },
  });
  const posted = await request(h.app)
    .post(`/api/v1/${contextId}/documents`)
    .set("API-KEY", apiKey)
    .send({ text: DOC, metadata: { domain: "architecture" } });
  expect(posted.status).toBe(202);
  const documentId = posted.body.document_id;

  const status = await waitFor(
    async () => {
      const res = await request(h.app).get(`/api/v1/${contextId}/documents/${documentId}/status`).set("API-KEY", apiKey);
      return res.body.state === "committed" || res.body.state === "failed" ? res.body : undefined;
    },
    { what: "document committed" },
  );
  expect(status.state).toBe("committed");
  expect(status.stages.map((s: { queue: string; status: string }) => [s.queue, s.status])).toEqual([
    ["extract_assertions", "succeeded"],
    ["validate_artifacts", "succeeded"],
    ["commit_artifacts", "succeeded"],
    ["truth_maintenance", "succeeded"],
  ]);
  expect(status.extraction_plan.skill).toBe("extraction/technical-docs");
  expect(status.stages[0].tokens_used).toBe(1_020);

  const db = h.api.db;
  expect(await db.documentNode.count({ where: { documentId } })).toBe(1);
  expect(await db.knowledgeCandidate.count({ where: { subjectId: documentId, status: "committed" } })).toBe(4);
  const assertions = await db.assertion.findMany({ where: { documentId }, orderBy: { startByte: "asc" } });
  expect(assertions).toHaveLength(2);
  for (const a of assertions) expect(Buffer.from(DOC).subarray(a.startByte, a.endByte).toString()).toBe(a.quote);
  expect(assertions[0]).toMatchObject({ predicate: "stores_in", stage: "fast", model: "openai-compatible:test-fast" });
  expect(await db.relation.count({ where: { contextId } })).toBe(2);
  const outbox = await db.outboxEvent.findMany({ where: { contextId } });
  expect(outbox).toHaveLength(1);
  expect(outbox[0]!.processedAt).not.toBeNull();
  const request0 = llm.requests[0]!;
  expect(request0.route).toBe("openai");
  expect(JSON.stringify(request0.body)).toContain("Recall stores memory in Postgres");
});

test("a turn returns its committed diff, naming the person, the instruction and a trace id", async () => {
  const session = await request(h.app).post(`/api/v1/${contextId}/sessions`).set("API-KEY", apiKey).send({});
  expect(session.status).toBe(201);
  const res = await request(h.app)
    .post(`/api/v1/${contextId}/sessions/${session.body.session_id}/turns`)
    .set("API-KEY", apiKey)
    .send({ role: "user", content: "I'm Alice, CTO at Acme. Always respond in bullet points.", scope: ["org=acme", "user=alice"] });
  expect(res.status).toBe(200);
  expect(res.body.trace_id).toMatch(/^[0-9a-f]{32}$/);
  expect(res.body.extraction).toMatchObject({ status: "committed", stage: "heuristic" });
  expect(res.body.diff.entities).toEqual(expect.arrayContaining([expect.objectContaining({ name: "Alice", type: "person" })]));
  expect(res.body.diff.attributes).toEqual(
    expect.arrayContaining([expect.objectContaining({ entity: "Alice", key: "role", value: "CTO" })]),
  );
  expect(res.body.diff.relations).toEqual(
    expect.arrayContaining([expect.objectContaining({ subject: "Alice", verb: "works_at", object: "Acme" })]),
  );
  expect(res.body.diff.instructions).toHaveLength(1);
  expect(res.body.diff.instructions[0].description).toMatch(/bullet points/i);
  // Answered once truth maintenance applied it; its work item records success a moment later.
  const statuses = async () => (await h.api.db.workItem.findMany({ where: { subjectId: res.body.turn_id } })).map((i) => i.status);
  await waitFor(async () => (await statuses()).every((s) => s === "succeeded"));
  expect(await statuses()).toEqual(["succeeded", "succeeded", "succeeded", "succeeded"]);
  const instruction = await h.api.db.instruction.findFirstOrThrow({ where: { contextId } });
  expect(instruction).toMatchObject({ active: true, turnId: res.body.turn_id });
  expect(await scopeOf(h.api.db, instruction.scopeSetId)).toEqual(["org=acme", "user=alice"]);
});

describe("bad requests get 4xx problem details naming the field", () => {
  test("missing text", async () => {
    const res = await request(h.app).post(`/api/v1/${contextId}/documents`).set("API-KEY", apiKey).send({ metadata: {} });
    expect(res.status).toBe(400);
    expect(res.type).toBe("application/problem+json");
    expect(res.body.errors[0].field).toBe("body.text");
  });
  test("wrong types", async () => {
    const res = await request(h.app).post(`/api/v1/${contextId}/documents`).set("API-KEY", apiKey).send({ text: 42, metadata: "x" });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(["body.metadata", "body.text"]);
  });
  test("malformed JSON", async () => {
    const res = await request(h.app)
      .post(`/api/v1/${contextId}/documents`)
      .set("API-KEY", apiKey)
      .set("Content-Type", "application/json")
      .send("{not json");
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/not valid JSON/);
  });
  test("a bad turn scope and role", async () => {
    const session = await request(h.app).post(`/api/v1/${contextId}/sessions`).set("API-KEY", apiKey).send({});
    const res = await request(h.app)
      .post(`/api/v1/${contextId}/sessions/${session.body.session_id}/turns`)
      .set("API-KEY", apiKey)
      .send({ role: "robot", content: "hi", scope: ["orgacme"] });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(["body.role", "body.scope.0"]);
  });
  test("unknown context, missing key, wrong key, another context's key", async () => {
    const other = await request(h.app).post("/api/v1/contexts").set("Authorization", `Bearer ${ADMIN_KEY}`).send({ name: "other" });
    const unknown = "00000000-0000-4000-8000-000000000000";
    expect((await request(h.app).post(`/api/v1/${unknown}/documents`).set("API-KEY", apiKey).send({ text: "x" })).status).toBe(404);
    expect((await request(h.app).post(`/api/v1/${contextId}/documents`).send({ text: "x" })).status).toBe(401);
    expect(
      (await request(h.app).post(`/api/v1/${contextId}/documents`).set("API-KEY", "rk_000000000000_nope").send({ text: "x" })).status,
    ).toBe(401);
    const foreign = await request(h.app).get(`/api/v1/${other.body.context_id}/documents/${unknown}/status`).set("API-KEY", apiKey);
    expect(foreign.status).toBe(404);
    expect(foreign.body.detail).toBeDefined();
  });
  test("creating a context needs the admin key and a name", async () => {
    expect((await request(h.app).post("/api/v1/contexts").send({ name: "x" })).status).toBe(401);
    const res = await request(h.app).post("/api/v1/contexts").set("Authorization", `Bearer ${ADMIN_KEY}`).send({});
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe("body.name");
  });
});

test("health and readiness answer", async () => {
  expect((await request(h.app).get("/healthz")).body).toEqual({ status: "ok" });
  const ready = await request(h.app).get("/readyz");
  expect(ready.status).toBe(200);
  expect(ready.body.checks.map((c: { name: string; ok: boolean }) => [c.name, c.ok])).toEqual([
    ["accepting", true],
    ["postgres", true],
    ["redis", true],
    ["migrations", true],
    ["workers", true],
  ]);
  // The workers check names the live worker processes (their heartbeats in Redis).
  expect(ready.body.checks.at(-1).detail).toMatch(/^1 worker process alive: /);
});

test("a turn with the speaker's name and its time resolves I/my to the speaker and dates the event", async () => {
  const session = await request(h.app).post(`/api/v1/${contextId}/sessions`).set("API-KEY", apiKey).send({});
  const res = await request(h.app).post(`/api/v1/${contextId}/sessions/${session.body.session_id}/turns`).set("API-KEY", apiKey).send({
    role: "user",
    name: "Caroline",
    occurred_at: "2023-05-08T12:00:00Z",
    content: "I have a dog named Max. I went to a pottery class last week.",
  });
  expect(res.status).toBe(200);
  expect(res.body.extraction).toMatchObject({ status: "committed", stage: "heuristic" });
  expect(res.body.diff.relations).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ subject: "Caroline", verb: "owns", object: "Max" }),
      expect.objectContaining({ subject: "Caroline", verb: "attended", object: "pottery class" }),
    ]),
  );
  const attended = await h.api.db.relation.findFirstOrThrow({ where: { contextId, predicate: "attended" } });
  expect(attended.validFrom.toISOString()).toBe("2023-05-01T00:00:00.000Z");
  const turn = await h.api.db.turn.findUniqueOrThrow({ where: { id: res.body.turn_id } });
  expect(turn).toMatchObject({ speaker: "Caroline", occurredAt: new Date("2023-05-08T12:00:00Z") });
});

test("retrying work that succeeded is refused with 409; an unknown work item is 404", async () => {
  const listed = await request(h.app)
    .get(`/api/v1/${contextId}/work-items`)
    .query({ status: "succeeded", limit: 1 })
    .set("API-KEY", apiKey);
  const done = listed.body.work_items[0];
  const res = await request(h.app).post(`/api/v1/${contextId}/work-items/${done.work_item_id}/retry`).set("API-KEY", apiKey);
  expect(res.status).toBe(409);
  expect(res.body.detail).toMatch(/work item is succeeded/);
  const missing = await request(h.app)
    .post(`/api/v1/${contextId}/work-items/00000000-0000-4000-8000-000000000000/retry`)
    .set("API-KEY", apiKey);
  expect(missing.status).toBe(404);
});

// Last in the file: it stops the harness's workers.
test("readiness fails naming the queues no live worker runs, and recovers when one starts", async () => {
  await h.runtime.close();
  const ready = await request(h.app).get("/readyz");
  expect(ready.status).toBe(503);
  const workers = ready.body.checks.find((c: { name: string }) => c.name === "workers");
  expect(workers).toMatchObject({ ok: false, error: expect.stringContaining("no live worker for extract_assertions") });
  const some = startWorkers(h.worker.deps, h.worker.connection, ["extract_assertions"]);
  try {
    const partly = await request(h.app).get("/readyz");
    expect(partly.body.checks.find((c: { name: string }) => c.name === "workers").error).toMatch(
      /^no live worker for validate_artifacts, commit_artifacts, truth_maintenance, extract_window \(1 alive, none runs them\)/,
    );
  } finally {
    await some.close();
  }
});
