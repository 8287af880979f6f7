// Client retries through the whole service: the real HTTP app, Postgres, Redis and workers, and a
// model behind the real openai SDK (the local wire-protocol server) slow enough for a client to give up.
import request from "supertest";
import { startFakeLlmServer, type FakeLlmServer } from "@recall/test-support";
import { routeGroups } from "../app";
import { ADMIN_KEY, startHarness, type Harness } from "../testing/harness";
import { contextClient, createContext, type ContextHandle } from "../testing/api-client";
import { IDEMPOTENCY_HEADER, REPLAYED_HEADER } from "../idempotency/idempotency-guard";
import { keyDigest } from "../idempotency/idempotency-seal";
import { claimKey, inputIdsOf, pruneExpiredKeys } from "../idempotency/idempotency-store";
import { sampleAnswer } from "../testing/answer-ids";

let h: Harness;
let llm: FakeLlmServer;
let ctx: ContextHandle;

beforeAll(async () => {
  llm = await startFakeLlmServer();
  h = await startHarness({
    RECALL_FAST_MODEL: "openai:gpt-fast",
    OPENAI_API_KEY: "test-openai-key",
    OPENAI_BASE_URL: llm.openaiBaseUrl,
    LLM_TIMEOUT_MS: "10000",
  });
  ctx = await createContext(h.app, "retries");
});

afterAll(async () => {
  await h?.close();
  await llm?.close();
});

const HEURISTIC_TURN = { role: "user", content: "I'm Alice, CTO at Acme.", scope: ["org=acme", "user=alice"] };
/** A turn no heuristic finishes, so it waits for the (slow) model. */
const MODEL_TURN = { role: "user", content: "Priya's team owns the payments gateway, which runs on Kubernetes.", scope: ["org=acme"] };
const NO_FACTS = { entities: [], attributes: [], relations: [], instructions: [], revocations: [], uncertainties: [] };

const post = (c: ContextHandle, path: string, body: object, key?: string) => {
  const req = request(h.app).post(`/api/v1/${c.contextId}${path}`).set("API-KEY", c.apiKey);
  return (key ? req.set(IDEMPOTENCY_HEADER, key) : req).send(body);
};
const newKey = () => `key-${crypto.randomUUID()}`;
const turnsOf = (sessionId: string) => h.api.db.turn.count({ where: { sessionId } });

describe("a turn posted twice with one Idempotency-Key", () => {
  test("the retry answers the first answer and stores nothing twice", async () => {
    const sessionId = await contextClient(h.app, ctx).session();
    const key = newKey();
    const first = await post(ctx, `/sessions/${sessionId}/turns`, HEURISTIC_TURN, key);
    const retry = await post(
      ctx,
      `/sessions/${sessionId}/turns`,
      { scope: HEURISTIC_TURN.scope, content: HEURISTIC_TURN.content, role: "user" },
      key,
    );

    expect(first.status).toBe(200);
    expect(first.headers[REPLAYED_HEADER.toLowerCase()]).toBeUndefined();
    expect(retry.status).toBe(200);
    expect(retry.headers[REPLAYED_HEADER.toLowerCase()]).toBe("true");
    expect(retry.body).toEqual(first.body);
    expect(await turnsOf(sessionId)).toBe(1);
    expect(await h.api.db.workItem.count({ where: { subjectId: first.body.turn_id, queue: "extract_assertions" } })).toBe(1);
    expect(await h.api.db.assertion.count({ where: { turnId: first.body.turn_id } })).toBeGreaterThan(0);
  });

  test("the same key with another body is refused with 422 naming the header; nothing is stored", async () => {
    const sessionId = await contextClient(h.app, ctx).session();
    const key = newKey();
    expect((await post(ctx, `/sessions/${sessionId}/turns`, HEURISTIC_TURN, key)).status).toBe(200);
    const other = await post(ctx, `/sessions/${sessionId}/turns`, { ...HEURISTIC_TURN, content: "I'm Bob." }, key);

    expect(other.status).toBe(422);
    expect(other.headers["content-type"]).toMatch(/application\/problem\+json/);
    expect(other.body).toMatchObject({ status: 422, title: "idempotency key reused", errors: [{ field: "header.Idempotency-Key" }] });
    expect(other.body.detail).toMatch(/Idempotency-Key .*different request/);
    expect(await turnsOf(sessionId)).toBe(1);
  });

  test("a client that times out and retries gets the same turn, not a second one", async () => {
    const sessionId = await contextClient(h.app, ctx).session();
    const key = newKey();
    llm.script({ json: NO_FACTS, delayMs: 1_500 });
    // The client gives up long before the model answers; the server carries on with the turn.
    const abandoned = post(ctx, `/sessions/${sessionId}/turns`, MODEL_TURN, key).timeout(300);
    await expect(abandoned).rejects.toThrow(/timeout/i);
    const retry = await post(ctx, `/sessions/${sessionId}/turns`, MODEL_TURN, key);

    expect(retry.status).toBe(200);
    expect(retry.body.extraction).toEqual({ status: "committed", stage: "fast" });
    const turns = await h.api.db.turn.findMany({ where: { sessionId } });
    expect(turns.map((t) => t.id)).toEqual([retry.body.turn_id]);
    expect(llm.requests.filter((r) => JSON.stringify(r.body).includes("payments gateway"))).toHaveLength(1);
  });

  test("a stored turn whose wait fails answers 202 with its status URL, and the retry replays that, not a second turn", async () => {
    const sessionId = await contextClient(h.app, ctx).session();
    const key = newKey();
    // The turn is stored and queued; then the connection the request waits on is lost.
    const lost = jest.spyOn(h.api.turns, "next").mockImplementationOnce(() => {
      throw new Error("Connection terminated unexpectedly");
    });
    const first = await post(ctx, `/sessions/${sessionId}/turns`, HEURISTIC_TURN, key);
    lost.mockRestore();
    const retry = await post(ctx, `/sessions/${sessionId}/turns`, HEURISTIC_TURN, key);

    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ extraction: { status: "pending" }, status_url: expect.stringContaining(first.body.turn_id) });
    expect(retry.status).toBe(202);
    expect(retry.headers[REPLAYED_HEADER.toLowerCase()]).toBe("true");
    expect(retry.body.turn_id).toBe(first.body.turn_id);
    expect(await turnsOf(sessionId)).toBe(1);
    const status = await request(h.app).get(first.body.status_url).set("API-KEY", ctx.apiKey);
    expect(status.body.extraction.status).toMatch(/pending|committed/);
  });

  test("concurrent duplicates store one turn, and every one of them answers it", async () => {
    const sessionId = await contextClient(h.app, ctx).session();
    const key = newKey();
    llm.script({ json: NO_FACTS, delayMs: 500 });
    const answers = await Promise.all(Array.from({ length: 5 }, () => post(ctx, `/sessions/${sessionId}/turns`, MODEL_TURN, key)));

    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(answers.map((a) => a.body.turn_id)).size).toBe(1);
    expect(answers.filter((a) => a.headers[REPLAYED_HEADER.toLowerCase()] === "true")).toHaveLength(4);
    expect(await turnsOf(sessionId)).toBe(1);
  });
});

describe("Idempotency-Key on the other writes", () => {
  test("documents: concurrent duplicates store one document; keys are per context", async () => {
    const other = await createContext(h.app, "retries-2");
    const key = newKey();
    const body = { text: "Osprey is the ledger. It stores entries in Postgres." };
    const answers = await Promise.all(Array.from({ length: 4 }, () => post(ctx, "/documents", body, key)));
    const elsewhere = await post(other, "/documents", body, key);

    expect(new Set(answers.map((a) => `${a.status} ${a.body.document_id}`))).toEqual(new Set([`202 ${answers[0]!.body.document_id}`]));
    expect(await h.api.db.document.count({ where: { contextId: ctx.contextId, text: body.text } })).toBe(1);
    expect(elsewhere.status).toBe(202);
    expect(elsewhere.body.document_id).not.toBe(answers[0]!.body.document_id);
  });

  test("uploads are compared by their content: the same file in a new multipart framing replays, another file is 422", async () => {
    const c = await createContext(h.app, "uploads");
    const key = newKey();
    const upload = (text: string) =>
      request(h.app)
        .post(`/api/v1/${c.contextId}/documents`)
        .set("API-KEY", c.apiKey)
        .set(IDEMPOTENCY_HEADER, key)
        .field("source", "runbook")
        .attach("file", Buffer.from(`# Runbook\n\n${text}\n`), "runbook.md");
    const first = await upload("Restart the gateway with make restart.");
    const retry = await upload("Restart the gateway with make restart.");
    const other = await upload("Restart the gateway with make reload.");
    const raw = await request(h.app)
      .post(`/api/v1/${c.contextId}/documents?source_id=runbook`)
      .set("API-KEY", c.apiKey)
      .set(IDEMPOTENCY_HEADER, newKey())
      .set("Content-Type", "text/markdown")
      .send("# Runbook\n\nRestart the gateway with make restart.\n");

    expect(first.status).toBe(202);
    expect(retry.status).toBe(202);
    expect(retry.headers[REPLAYED_HEADER.toLowerCase()]).toBe("true");
    expect(retry.body.document_id).toBe(first.body.document_id);
    expect(other.status).toBe(422);
    expect(other.body.errors[0].field).toBe(`header.${IDEMPOTENCY_HEADER}`);
    // A raw body under a new key is read as usual (the same bytes in the same scope: the stored document).
    expect(raw.status).toBe(200);
    expect(raw.body).toMatchObject({ duplicate: true, document_id: first.body.document_id });
    expect(await h.api.db.document.count({ where: { contextId: c.contextId } })).toBe(1);
  });

  test("contexts: the retry returns the same context and key; the table keeps neither the key nor the answer readable", async () => {
    const key = newKey();
    const create = () =>
      request(h.app)
        .post("/api/v1/contexts")
        .set("Authorization", `Bearer ${ADMIN_KEY}`)
        .set(IDEMPOTENCY_HEADER, key)
        .send({ name: "once" });
    const first = await create();
    const again = await create();

    expect(first.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(await h.api.db.context.count({ where: { name: "once" } })).toBe(1);
    const row = await h.api.db.idempotencyKey.findUniqueOrThrow({ where: { scope_key: { scope: "admin", key: keyDigest("admin", key) } } });
    expect(JSON.stringify(row)).not.toContain(first.body.api_key);
    expect(JSON.stringify(row)).not.toContain(key);
  });

  test("facts and retractions replay their first answer", async () => {
    const key = newKey();
    const facts = { scope: ["org=acme"], entities: [{ name: "Kestrel", type: "component", memory_category: "knowledge" }] };
    const first = await post(ctx, "/facts", facts, key);
    const again = await post(ctx, "/facts", facts, key);
    expect(first.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(await h.api.db.factWrite.count({ where: { contextId: ctx.contextId } })).toBe(1);

    const retractKey = newKey();
    const path = `/fact-writes/${first.body.fact_write_id}/retract`;
    const retracted = await post(ctx, path, { reason: "test" }, retractKey);
    const retractedAgain = await post(ctx, path, { reason: "test" }, retractKey);
    expect(retracted.status).toBe(200);
    expect(retractedAgain.body).toEqual(retracted.body);
    expect(await h.api.db.retraction.count({ where: { contextId: ctx.contextId } })).toBe(1);
  });

  test("errors are not kept: a retry after a 4xx runs again", async () => {
    const key = newKey();
    const missing = `/sessions/${crypto.randomUUID()}/turns`;
    expect((await post(ctx, missing, HEURISTIC_TURN, key)).status).toBe(404);
    expect(await h.api.db.idempotencyKey.count({ where: { key: keyDigest(`context:${ctx.contextId}`, key) } })).toBe(0);
    const sessionId = await contextClient(h.app, ctx).session();
    // The key is free again, so it may now name another request.
    expect((await post(ctx, `/sessions/${sessionId}/turns`, HEURISTIC_TURN, key)).status).toBe(200);
  });

  test("a malformed key is a 400 naming the header", async () => {
    for (const bad of ["has spaces", "x".repeat(256), "é"]) {
      const res = await request(h.app)
        .post(`/api/v1/${ctx.contextId}/documents`)
        .set("API-KEY", ctx.apiKey)
        .set(IDEMPOTENCY_HEADER, bad)
        .send({ text: "x" });
      expect({ bad, status: res.status, field: res.body.errors?.[0]?.field }).toEqual({
        bad,
        status: 400,
        field: "header.Idempotency-Key",
      });
    }
  });
});

describe("retention, takeover and clean-up", () => {
  const scope = () => `context:${ctx.contextId}`;

  test("after the retention window the key is free for a new request, and expired rows are deleted", async () => {
    const key = newKey();
    const first = await post(ctx, "/documents", { text: "first text" }, key);
    await h.api.db.idempotencyKey.updateMany({
      where: { key: keyDigest(scope(), key) },
      data: { expiresAt: new Date(Date.now() - 1_000) },
    });
    const second = await post(ctx, "/documents", { text: "second text" }, key);
    expect(second.status).toBe(202);
    expect(second.body.document_id).not.toBe(first.body.document_id);

    const stale = newKey();
    await post(ctx, "/documents", { text: "stale" }, stale);
    await h.api.db.idempotencyKey.updateMany({
      where: { key: keyDigest(scope(), stale) },
      data: { expiresAt: new Date(Date.now() - 1_000) },
    });
    expect(await pruneExpiredKeys(h.api.db)).toBeGreaterThanOrEqual(1);
    expect(await h.api.db.idempotencyKey.count({ where: { key: keyDigest(scope(), stale) } })).toBe(0);
    expect(await h.api.db.idempotencyKey.count({ where: { key: keyDigest(scope(), key) } })).toBe(1);
  });

  test("an unanswered claim is taken over after its lease only by the same request; in-flight rows are never pruned", async () => {
    const digest = keyDigest(scope(), newKey());
    const claim = (fingerprint: string, leaseMs: number) =>
      claimKey(h.api.db, { scope: scope(), digest, fingerprint, leaseMs, retentionMs: 3_600_000 });
    expect(await claim("a", 60_000)).not.toBeNull();
    expect(await claim("a", 60_000)).toBeNull();
    expect(await pruneExpiredKeys(h.api.db, new Date(Date.now() + 1_000))).toBe(0);
    await h.api.db.idempotencyKey.updateMany({ where: { key: digest }, data: { lockedUntil: new Date(Date.now() - 1) } });
    expect(await claim("b", 60_000)).toBeNull();
    expect(await claim("a", 60_000)).not.toBeNull();
  });
});

test("every write route honours the header, and the OpenAPI document says so", async () => {
  const reads = new Set(["POST /query", "POST /state", "POST /context"]);
  // An import derives every id it writes from the export (docs/export-format.md): sent again, with or without a key,
  // it creates nothing twice; and its body is a stream of up to RECALL_IMPORT_MAX_BYTES, not one kept for replay.
  const idempotentByContent = new Set(["POST /import"]);
  const writes = routeGroups(h.api)
    .flatMap((g) => g.routes)
    .filter((r) => r.method !== "get" && !reads.has(`${r.method.toUpperCase()} ${r.path}`))
    .filter((r) => !idempotentByContent.has(`${r.method.toUpperCase()} ${r.path}`));
  expect(writes.length).toBeGreaterThanOrEqual(10);
  expect(writes.filter((r) => !r.idempotent).map((r) => `${r.method} ${r.path}`)).toEqual([]);

  const doc = (await request(h.app).get("/openapi.json")).body;
  const turns = doc.paths["/api/v1/{contextId}/sessions/{sessionId}/turns"].post;
  expect(turns.parameters).toContainEqual(expect.objectContaining({ name: "Idempotency-Key", in: "header", required: false }));
  expect(Object.keys(turns.responses)).toEqual(expect.arrayContaining(["409", "422", "413"]));
});

test("every id an idempotent route's answer can name is recorded beside it, for erasure to find", async () => {
  const doc = (await request(h.app).get("/openapi.json")).body;
  const components = doc.components.schemas;
  const missed: string[] = [];
  let checked = 0;
  for (const [path, methods] of Object.entries<Record<string, OpenApiOperation>>(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (!op.parameters?.some((p) => p.name === IDEMPOTENCY_HEADER)) continue;
      for (const [status, response] of Object.entries(op.responses)) {
        const schema = response.content?.["application/json"]?.schema;
        if (!status.startsWith("2") || !schema) continue;
        const answer = sampleAnswer(schema, components);
        const recorded = new Set(inputIdsOf(answer.body));
        for (const [id, where] of answer.ids) if (!recorded.has(id)) missed.push(`${method.toUpperCase()} ${path} ${status}: ${where}`);
        checked += answer.ids.size;
      }
    }
  }
  // The batch's turn_ids and the turn answer's nested work item are among them (a batch answer's ids were missed).
  expect(checked).toBeGreaterThanOrEqual(20);
  expect(missed).toEqual([]);
});

test("a batch's kept answer goes with its session's erasure: the same key is not replayed", async () => {
  const session = (await post(ctx, "/sessions", {})).body.session_id as string;
  const key = newKey();
  const batch = {
    turns: [
      { role: "user", content: "Hello there." },
      { role: "assistant", content: "Hi!" },
    ],
  };
  const first = await post(ctx, `/sessions/${session}/turns/batch`, batch, key);
  expect(first.status).toBe(202);
  const erased = await post(ctx, "/erasures", { session_ids: [session] });
  expect(erased.status).toBe(200);
  expect(erased.body.counts.idempotency_keys).toBeGreaterThanOrEqual(1);
  const again = await post(ctx, `/sessions/${session}/turns/batch`, batch, key);
  expect(again.headers[REPLAYED_HEADER.toLowerCase()]).toBeUndefined();
  expect(JSON.stringify(again.body)).not.toContain(first.body.batch_id);
  expect(again.status).toBe(409);
});

interface OpenApiOperation {
  parameters?: { name: string }[];
  responses: Record<string, { content?: Record<string, { schema?: object }> }>;
}
