// The model stages of extraction through the whole service: real Postgres and Redis, the
// real workers, and the real Anthropic and OpenAI SDKs against the local wire-protocol
// server. Covers escalation, provider faults and their retries, budgets, chunked documents,
// evidence checking, and a service with no model that is configured later.
import request from "supertest";
import { configWith, type Config } from "@recall/config";
import { QUEUE_NAMES, inputState } from "@recall/pipeline";
import { compiledCpuTasks, startFakeLlmServer, waitFor, type FakeLlmResponse, type FakeLlmServer } from "@recall/test-support";
import { bootstrapWorker, type WorkerProcess } from "@recall/worker/bootstrap";
import { startWorkers, type WorkerRuntime } from "@recall/worker/runtime";
import { ADMIN_KEY, startHarness, type Harness } from "../testing/harness";

type Overrides = Partial<Record<keyof Config, string>>;

let h: Harness;
let llm: FakeLlmServer;
let workers: { process: WorkerProcess; runtime: WorkerRuntime } | undefined;

// The harness runs the API and an outbox relay only; each describe starts the workers with
// the model configuration it needs, on the same database and queue prefix.
beforeAll(async () => {
  llm = await startFakeLlmServer();
  h = await startHarness({}, []);
});

afterAll(async () => {
  await stopWorkers();
  await h?.close();
  await llm?.close();
});

async function stopWorkers(): Promise<void> {
  await workers?.runtime.close();
  await workers?.process.close();
  workers = undefined;
}

/** Replaces the running workers with ones built from this configuration, as a redeploy would. */
async function restartWorkers(overrides: Overrides): Promise<void> {
  await stopWorkers();
  const config = configWith({
    DATABASE_URL: h.config.DATABASE_URL,
    REDIS_URL: h.config.REDIS_URL,
    QUEUE_PREFIX: h.config.QUEUE_PREFIX,
    LOG_LEVEL: "silent",
    OUTBOX_POLL_MS: "50",
    NODE_ENV: "test",
    ANTHROPIC_API_KEY: "test-anthropic-key",
    ANTHROPIC_BASE_URL: llm.anthropicBaseUrl,
    OPENAI_API_KEY: "test-openai-key",
    OPENAI_BASE_URL: llm.openaiBaseUrl,
    LLM_TIMEOUT_MS: "5000",
    ...overrides,
  });
  const process = await bootstrapWorker(config, { cpuTasksModule: compiledCpuTasks() });
  workers = { process, runtime: startWorkers(process.deps, process.connection, QUEUE_NAMES) };
}

// ---- the service's API, as a client uses it ----

interface Ctx {
  contextId: string;
  apiKey: string;
  sessionId: string;
}

/** A fresh context per test, so memory committed by one test is never known to another. */
async function newContext(config: Record<string, unknown> = {}): Promise<Ctx> {
  const created = await request(h.app).post("/api/v1/contexts").set("Authorization", `Bearer ${ADMIN_KEY}`).send({ name: "t", config });
  expect(created.status).toBe(201);
  const { context_id: contextId, api_key: apiKey } = created.body;
  const session = await request(h.app).post(`/api/v1/${contextId}/sessions`).set("API-KEY", apiKey).send({});
  return { contextId, apiKey, sessionId: session.body.session_id };
}

async function postTurn(ctx: Ctx, content: string, name?: string) {
  const res = await request(h.app)
    .post(`/api/v1/${ctx.contextId}/sessions/${ctx.sessionId}/turns`)
    .set("API-KEY", ctx.apiKey)
    .send({ role: "user", content, name });
  expect(res.status).toBe(200);
  return res.body;
}

async function postDocument(ctx: Ctx, text: string): Promise<string> {
  const res = await request(h.app)
    .post(`/api/v1/${ctx.contextId}/documents`)
    .set("API-KEY", ctx.apiKey)
    .send({ text, metadata: { domain: "architecture" } });
  expect(res.status).toBe(202);
  return res.body.document_id;
}

function documentSettled(ctx: Ctx, documentId: string) {
  return waitFor(
    async () => {
      const res = await request(h.app).get(`/api/v1/${ctx.contextId}/documents/${documentId}/status`).set("API-KEY", ctx.apiKey);
      return ["committed", "awaiting_model", "failed"].includes(res.body.state) ? res.body : undefined;
    },
    { what: `document ${documentId} to settle` },
  );
}

// ---- what the service stored ----

const extractItem = (subjectId: string) => h.api.db.workItem.findFirstOrThrow({ where: { subjectId, queue: "extract_assertions" } });

async function attempts(subjectId: string) {
  const item = await extractItem(subjectId);
  return h.api.db.workAttempt.findMany({ where: { workItemId: item.id }, orderBy: { attempt: "asc" } });
}

/** Milliseconds between the end of one attempt and the start of the next: the backoff the queue applied. */
function gapMs(before: { finishedAt: Date | null }, after: { startedAt: Date | null }): number {
  return after.startedAt!.getTime() - before.finishedAt!.getTime();
}

/** Only this test's requests: the fake server's log spans the whole file. */
function requestsSince(mark: number) {
  return llm.requests.slice(mark);
}

// ---- scripted model answers ----

const evidenceFields = { confidence: 0.9, significance: "high", valid_from: null, valid_to: null } as const;
const NO_FACTS = { entities: [], attributes: [], relations: [], instructions: [], revocations: [], uncertainties: [] };
const relation = (subject: string, verb: string, object: string, evidence: string) => ({
  subject,
  verb,
  object,
  memory_category: "knowledge",
  evidence,
  ...evidenceFields,
});
const entity = (name: string, type: string) => ({ name, type, memory_category: "knowledge", aliases: [] });

/** A turn no rule reads, and the answer a model gives for it. */
const PRIYA = "Priya's team owns the payments gateway, which runs on Kubernetes.";
const PRIYA_FACTS = {
  ...NO_FACTS,
  entities: [entity("Priya", "person"), entity("payments gateway", "product")],
  relations: [relation("payments gateway", "runs_on", "Kubernetes", "the payments gateway, which runs on Kubernetes")],
};
const answer = (json: unknown, inputTokens = 200, outputTokens = 50): FakeLlmResponse => ({ json, usage: { inputTokens, outputTokens } });

/** Two paragraphs long enough to be stored as two document nodes. */
function twoChunkDocument(first: string, second: string): string {
  const filler = (topic: string) => ` The ${topic} notes continue with routine operational detail that no rule reads.`.repeat(30);
  return `${first}${filler("billing")}\n\n${second}${filler("ledger")}`;
}

describe("with a fast model (anthropic) and a strong model (openai)", () => {
  beforeAll(() => restartWorkers({ RECALL_FAST_MODEL: "anthropic:claude-fast", RECALL_STRONG_MODEL: "openai:gpt-strong" }));

  test("fast output invalid after its repair goes to the strong model; stage strong is recorded everywhere", async () => {
    const ctx = await newContext();
    const mark = llm.requests.length;
    llm.script(answer({ entities: "Priya" }, 100, 10), answer({ entities: "Priya" }, 120, 10), answer(PRIYA_FACTS, 300, 60));
    const turn = await postTurn(ctx, PRIYA);

    expect(turn.extraction).toEqual({ status: "committed", stage: "strong" });
    expect(turn.diff.relations).toEqual([expect.objectContaining({ subject: "payments gateway", verb: "runs_on", object: "Kubernetes" })]);
    expect(requestsSince(mark).map((r) => r.route)).toEqual(["anthropic", "anthropic", "openai"]);
    const item = await extractItem(turn.turn_id);
    expect(item).toMatchObject({ status: "succeeded", tokensUsed: 600, attempts: 1 });
    expect((item.payload as { outcomes: unknown[] }).outcomes).toEqual([
      expect.objectContaining({
        stage: "strong",
        model: "openai:gpt-strong",
        tokens_used: 600,
        reason: expect.stringMatching(/failed validation after one repair/),
      }),
    ]);
    const candidates = await h.api.db.knowledgeCandidate.findMany({ where: { turnId: turn.turn_id } });
    expect(new Set(candidates.map((c) => `${c.stage} ${c.model}`))).toEqual(new Set(["strong openai:gpt-strong"]));
    const assertion = await h.api.db.assertion.findFirstOrThrow({ where: { turnId: turn.turn_id } });
    expect(assertion).toMatchObject({ stage: "strong", model: "openai:gpt-strong" });
  });

  test("a 429 is retried by the queue after the provider's retry-after, with one attempt record each", async () => {
    const ctx = await newContext();
    llm.script({ status: 429, retryAfter: "3" }, answer(PRIYA_FACTS));
    const turn = await postTurn(ctx, PRIYA);

    expect(turn.extraction).toEqual({ status: "committed", stage: "fast" });
    const [first, second, ...rest] = await attempts(turn.turn_id);
    expect(rest).toEqual([]);
    expect(first).toMatchObject({ attempt: 1, status: "failed", errorClass: "provider", errorMessage: expect.stringMatching(/429/) });
    expect(second).toMatchObject({ attempt: 2, status: "succeeded", errorClass: null, tokensUsed: 250 });
    // Three seconds as asked: longer than the queue's own first backoff (2 s ± 25%) ever is.
    // Only a lower bound is asserted, since a loaded machine can only add delay.
    expect(gapMs(first!, second!)).toBeGreaterThanOrEqual(3_000);
    expect(await h.api.db.assertion.count({ where: { turnId: turn.turn_id } })).toBe(1);
  });

  test("a later chunk of a document is told the entities found in earlier ones; offsets are the document's", async () => {
    const ctx = await newContext();
    const doc = twoChunkDocument(
      "Kestrel is the billing service and Kestrel depends on Redis.",
      "The ledger keeps its entries in Postgres.",
    );
    const mark = llm.requests.length;
    llm.script(
      answer({
        ...NO_FACTS,
        entities: [entity("Kestrel", "component")],
        relations: [relation("Kestrel", "depends_on", "Redis", "Kestrel depends on Redis")],
      }),
      answer({ ...NO_FACTS, relations: [relation("Kestrel", "stores_in", "Postgres", "keeps its entries in Postgres")] }),
    );
    const documentId = await postDocument(ctx, doc);
    const status = await documentSettled(ctx, documentId);

    expect(status.state).toBe("committed");
    const [first, second] = requestsSince(mark).map((r) => JSON.stringify(r.body["messages"]));
    expect(first).not.toContain("Kestrel (component)");
    expect(second).toContain("Known entities (use these names when the text refers to them):\\n- Kestrel (component)");
    const outcomes = ((await extractItem(documentId)).payload as { outcomes: { stage: string; node_id: string }[] }).outcomes;
    expect(outcomes.map((o) => o.stage)).toEqual(["fast", "fast"]);
    expect(new Set(outcomes.map((o) => o.node_id)).size).toBe(2);
    const assertions = await h.api.db.assertion.findMany({ where: { documentId }, orderBy: { startByte: "asc" } });
    expect(assertions.map((a) => a.quote)).toEqual(["Kestrel depends on Redis", "keeps its entries in Postgres"]);
    for (const a of assertions) expect(Buffer.from(doc).subarray(a.startByte, a.endByte).toString()).toBe(a.quote);
  });

  test("an evidence quote that is not in the text makes its candidate invalid, shown in the document status", async () => {
    const ctx = await newContext();
    const doc = "Osprey is the ledger. It stores entries in Postgres.";
    llm.script(
      answer({
        ...NO_FACTS,
        relations: [
          relation("Osprey", "stores_in", "Postgres", "It stores entries in Postgres"),
          relation("Osprey", "depends_on", "Kafka", "Osprey depends on Kafka"),
        ],
      }),
    );
    const documentId = await postDocument(ctx, doc);
    const status = await documentSettled(ctx, documentId);

    expect(status.state).toBe("committed");
    expect(status.candidates).toMatchObject({ total: 2, committed: 1, invalid: 1 });
    const [invalid, ...others] = status.candidates.invalid_details;
    expect(others).toEqual([]);
    expect(invalid).toMatchObject({ ordinal: 1, kind: "relation" });
    // Matched on the text so either error shape (a string or { field, message }) passes.
    expect(JSON.stringify(invalid.errors)).toMatch(/evidence\.quote.*the quoted text is not in the source/);
    const assertions = await h.api.db.assertion.findMany({ where: { documentId } });
    expect(assertions.map((a) => [a.quote, a.startByte, a.endByte])).toEqual([["It stores entries in Postgres", 22, 51]]);
  });

  test("a prompt that does not fit the context's token budget is never sent: class budget, no tokens spent", async () => {
    const ctx = await newContext({ max_tokens: 40 });
    const mark = llm.requests.length;
    const documentId = await postDocument(ctx, "Kestrel is the billing service. The ledger keeps entries in Postgres.");
    const status = await documentSettled(ctx, documentId);

    expect(status.state).toBe("failed");
    expect(status.stages[0]).toMatchObject({
      status: "dead",
      attempts: 1,
      tokens_used: 0,
      error: {
        class: "budget",
        message: expect.stringMatching(/^token budget exceeded: the prompt needs more than tokens and 40 of 40 are left/),
      },
    });
    expect(requestsSince(mark)).toHaveLength(0);
    expect(status.candidates.total).toBe(0);
  });

  test("each call's answer is capped to what the budget has left, and a call that would pass it is not made", async () => {
    const budget = 2_600;
    const ctx = await newContext({ max_tokens: budget });
    const mark = llm.requests.length;
    llm.script(answer({ ...NO_FACTS, entities: [entity("Kestrel", "component")] }, 1_200, 5_000));
    const documentId = await postDocument(
      ctx,
      twoChunkDocument("Kestrel is the billing service.", "The ledger keeps entries in Postgres."),
    );
    const status = await documentSettled(ctx, documentId);

    // The first chunk's call asked for no more than the budget left after its prompt; the fake, like a
    // provider, bills no more output than that cap. The second chunk's prompt no longer fits: never sent.
    const sent = requestsSince(mark);
    expect(sent).toHaveLength(1);
    const cap = sent[0]!.body["max_tokens"] as number;
    expect(cap).toBeGreaterThanOrEqual(64);
    expect(1_200 + cap).toBeLessThanOrEqual(budget);
    expect(status.state).toBe("failed");
    expect(status.stages[0]).toMatchObject({ status: "dead", attempts: 1, tokens_used: 1_200 + cap, error: { class: "budget" } });
    expect(status.stages[0]!.tokens_used).toBeLessThanOrEqual(budget);
    expect(status.candidates.total).toBe(0);
    expect(await h.api.db.assertion.count({ where: { documentId } })).toBe(0);
    expect(await h.api.db.entity.count({ where: { contextId: ctx.contextId } })).toBe(0);
  });

  test("a context's wall-time budget cuts a slow call: class budget, not retried", async () => {
    const ctx = await newContext({ max_wall_ms: 300 });
    llm.script({ ...answer(NO_FACTS), delayMs: 3_000 });
    const documentId = await postDocument(ctx, "Osprey is the ledger. It stores entries in Postgres.");
    const status = await documentSettled(ctx, documentId);

    expect(status.stages[0]).toMatchObject({
      status: "dead",
      attempts: 1,
      error: { class: "budget", message: expect.stringMatching(/^wall-time budget exceeded/) },
    });
    expect(status.candidates.total).toBe(0);
  });
});

describe("with only a fast model (openai)", () => {
  beforeAll(() => restartWorkers({ RECALL_FAST_MODEL: "openai:gpt-fast", LLM_TIMEOUT_MS: "1000" }));

  test("a 500 is retried with the queue's backoff and then succeeds", async () => {
    const ctx = await newContext();
    llm.script(
      { status: 500 },
      answer({ ...NO_FACTS, relations: [relation("Osprey", "stores_in", "Postgres", "It stores entries in Postgres")] }),
    );
    const documentId = await postDocument(ctx, "Osprey is the ledger. It stores entries in Postgres.");
    const status = await documentSettled(ctx, documentId);

    expect(status.state).toBe("committed");
    const [first, second] = await attempts(documentId);
    expect(first).toMatchObject({ attempt: 1, status: "failed", errorClass: "provider", errorMessage: expect.stringMatching(/500/) });
    expect(second).toMatchObject({ attempt: 2, status: "succeeded" });
    expect(gapMs(first!, second!)).toBeGreaterThanOrEqual(1_500);
    expect(await h.api.db.assertion.count({ where: { documentId } })).toBe(1);
  });

  test("a provider that does not answer in time is retried like any provider fault", async () => {
    const ctx = await newContext();
    llm.script({ ...answer(PRIYA_FACTS), delayMs: 3_000 }, answer(PRIYA_FACTS));
    const turn = await postTurn(ctx, PRIYA);

    expect(turn.extraction).toEqual({ status: "committed", stage: "fast" });
    const records = await attempts(turn.turn_id);
    expect(records.map((a) => [a.attempt, a.status, a.errorClass])).toEqual([
      [1, "failed", "provider"],
      [2, "succeeded", null],
    ]);
    expect(records[0]!.errorMessage).toMatch(/did not answer within 1000 ms/);
  });

  test("truncated JSON is repaired within the same attempt", async () => {
    const ctx = await newContext();
    const mark = llm.requests.length;
    llm.script({ truncated: true, json: PRIYA_FACTS, usage: { inputTokens: 200, outputTokens: 400 } }, answer(PRIYA_FACTS));
    const turn = await postTurn(ctx, PRIYA);

    expect(turn.extraction).toEqual({ status: "committed", stage: "fast" });
    expect(turn.diff.relations).toHaveLength(1);
    const sent = requestsSince(mark);
    expect(sent.map((r) => r.route)).toEqual(["openai", "openai"]);
    expect(JSON.stringify(sent[1]!.body["messages"])).toMatch(/cut off.*give a shorter answer/);
    expect(await attempts(turn.turn_id)).toEqual([expect.objectContaining({ attempt: 1, status: "succeeded", tokensUsed: 850 })]);
  });

  test("output that is not JSON even after its repair, with no strong model, is retried by the queue", async () => {
    const ctx = await newContext();
    llm.script({ raw: "Priya owns the gateway." }, { raw: "Priya owns it." }, answer(PRIYA_FACTS));
    const turn = await postTurn(ctx, PRIYA);

    expect(turn.extraction).toEqual({ status: "committed", stage: "fast" });
    const [first, second] = await attempts(turn.turn_id);
    expect(first).toMatchObject({
      status: "failed",
      errorClass: "provider",
      errorMessage: expect.stringMatching(/not JSON/),
      tokensUsed: 30,
    });
    expect(second).toMatchObject({ status: "succeeded" });
  });
});

describe("with no model configured", () => {
  beforeAll(() => restartWorkers({}));

  test("heuristics still commit; inputs that need a model are kept, await a model (not failed), and complete once a model is set and they are retried", async () => {
    const ctx = await newContext();
    const heuristic = await postTurn(ctx, "I'm Alice, CTO at Acme.");
    expect(heuristic.extraction).toEqual({ status: "committed", stage: "heuristic" });

    const turn = await postTurn(ctx, PRIYA);
    expect(turn).toMatchObject({ diff: { relations: [] }, trace_id: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(turn.extraction).toMatchObject({ status: "awaiting_model", stage: "heuristic" });
    expect(turn.extraction.error_class).toBeUndefined();
    expect(turn.extraction.awaiting_model.reason).toMatch(/set RECALL_FAST_MODEL .*ANTHROPIC_API_KEY.*OPENAI_API_KEY.*OPENAI_BASE_URL/);
    const listed = await request(h.app).get(`/api/v1/${ctx.contextId}/sessions/${ctx.sessionId}/turns`).set("API-KEY", ctx.apiKey);
    expect(listed.body.turns.map((t: { turn_id: string }) => t.turn_id)).toEqual([heuristic.turn_id, turn.turn_id]);

    const documentId = await postDocument(ctx, "Osprey is the ledger. It stores entries in Postgres.");
    const waiting = await documentSettled(ctx, documentId);
    expect(waiting.state).toBe("awaiting_model");
    expect(waiting.stages[0]).toMatchObject({ status: "awaiting_model", attempts: 1 });
    expect(waiting.stages[0].error).toBeUndefined();

    await restartWorkers({ RECALL_FAST_MODEL: "openai-compatible:llama3:8b" });
    llm.script(answer(PRIYA_FACTS));
    await retry(ctx, turn.extraction.awaiting_model.work_item_id);
    await turnCommitted(turn.turn_id);
    expect(await h.api.db.assertion.count({ where: { turnId: turn.turn_id } })).toBe(1);
    expect((await attempts(turn.turn_id)).map((a) => [a.attempt, a.status, a.errorClass])).toEqual([
      [1, "awaiting_model", null],
      [2, "succeeded", null],
    ]);

    llm.script(answer({ ...NO_FACTS, relations: [relation("Osprey", "stores_in", "Postgres", "It stores entries in Postgres")] }));
    await retry(ctx, waiting.stages[0].work_item_id);
    await waitFor(async () => ((await documentSettled(ctx, documentId)).state === "committed" ? true : undefined), {
      what: "the document committed",
    });
    expect(await h.api.db.assertion.count({ where: { documentId, predicate: "stores_in" } })).toBe(1);
    expect(llm.requests.at(-1)!.body["model"]).toBe("llama3:8b");
  });
});

describe("the open reader, with no model configured", () => {
  beforeAll(() => restartWorkers({}));

  test("a first-person deed read by its shape commits: the speaker's words are the value, the clause the evidence", async () => {
    const ctx = await newContext();
    const turn = await postTurn(ctx, "I'm still volunteering at the homeless shelter. It's fulfilling to lend a hand.", "Caroline");
    expect(turn.extraction).toEqual({ status: "committed", stage: "heuristic" });
    expect(turn.diff.attributes).toEqual([
      { entity: "Caroline", key: "doing", value: "volunteering at the homeless shelter", memory_category: "context" },
    ]);
    await turnCommitted(turn.turn_id);
    const attribute = await h.api.db.attribute.findFirstOrThrow({ where: { contextId: ctx.contextId, key: "doing" } });
    expect(attribute.value).toBe("volunteering at the homeless shelter");
    const assertion = await h.api.db.assertion.findUniqueOrThrow({ where: { id: attribute.assertionId } });
    expect(assertion.turnId).toBe(turn.turn_id);
  });
});

async function retry(ctx: Ctx, workItemId: string): Promise<void> {
  const res = await request(h.app).post(`/api/v1/${ctx.contextId}/work-items/${workItemId}/retry`).set("API-KEY", ctx.apiKey);
  expect(res.status).toBe(202);
}

function turnCommitted(turnId: string) {
  return waitFor(
    async () => {
      const items = await h.api.db.workItem.findMany({ where: { subjectType: "turn", subjectId: turnId } });
      return inputState(items) === "committed" || undefined;
    },
    { what: `turn ${turnId} committed` },
  );
}
