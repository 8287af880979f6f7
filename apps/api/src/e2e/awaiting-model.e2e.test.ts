// Issue 44 end to end: a service with no model is fed a short conversation. The rules commit what they are sure of,
// with their quotes; what needs a model is `awaiting_model`, never failed work (dashboard, admin list, /metrics).
// Then the scripted provider (the real OpenAI SDK against the local wire-protocol server) is configured and an
// operator extracts again: the rest is committed and nothing twice.
import request from "supertest";
import { configWith, type Config } from "@recall/config";
import { QUEUE_NAMES } from "@recall/pipeline";
import { compiledCpuTasks, startFakeLlmServer, waitFor, type FakeLlmServer } from "@recall/test-support";
import { bootstrapWorker, type WorkerProcess } from "@recall/worker/bootstrap";
import { startWorkers, type WorkerRuntime } from "@recall/worker/runtime";
import { createApp } from "../app";
import { bootstrapApi } from "../bootstrap";
import { createServerApp } from "../server-app";
import { ADMIN_KEY, startHarness, type Harness } from "../testing/harness";

type Overrides = Partial<Record<keyof Config, string>>;

let h: Harness;
let llm: FakeLlmServer;
let workers: { process: WorkerProcess; runtime: WorkerRuntime } | undefined;
let modelApi: ReturnType<typeof bootstrapApi> | undefined;

beforeAll(async () => {
  llm = await startFakeLlmServer();
  h = await startHarness({}, []);
  await restartWorkers({});
});

afterAll(async () => {
  await stopWorkers();
  await modelApi?.close();
  await h?.close();
  await llm?.close();
});

async function stopWorkers(): Promise<void> {
  await workers?.runtime.close();
  await workers?.process.close();
  workers = undefined;
}

function configOf(overrides: Overrides): Config {
  return configWith({
    DATABASE_URL: h.config.DATABASE_URL,
    REDIS_URL: h.config.REDIS_URL,
    QUEUE_PREFIX: h.config.QUEUE_PREFIX,
    ADMIN_API_KEY: ADMIN_KEY,
    LOG_LEVEL: "silent",
    OUTBOX_POLL_MS: "50",
    NODE_ENV: "test",
    RECALL_WINDOW_LINGER_MS: "0",
    OPENAI_API_KEY: "test-openai-key",
    OPENAI_BASE_URL: llm.openaiBaseUrl,
    LLM_TIMEOUT_MS: "5000",
    ...overrides,
  });
}

/** Replaces the running workers with ones built from this configuration, as a redeploy would. */
async function restartWorkers(overrides: Overrides): Promise<void> {
  await stopWorkers();
  const process = await bootstrapWorker(configOf(overrides), { cpuTasksModule: compiledCpuTasks() });
  workers = { process, runtime: startWorkers(process.deps, process.connection, QUEUE_NAMES) };
}

const admin = (app: Parameters<typeof request>[0], path: string) =>
  request(app).post(path).set("Authorization", `Bearer ${ADMIN_KEY}`).set("Content-Type", "application/json");

const MIXED = "Carol is the CFO at Acme. Carol worries about the audit.";

test("no model: the rules' part commits, the rest awaits a model (not failed); extract again commits the rest, nothing twice", async () => {
  const created = await request(h.app).post("/api/v1/contexts").set("Authorization", `Bearer ${ADMIN_KEY}`).send({ name: "t" });
  const { context_id: contextId, api_key: apiKey } = created.body;
  const session = await request(h.app).post(`/api/v1/${contextId}/sessions`).set("API-KEY", apiKey).send({});
  const turnsUrl = `/api/v1/${contextId}/sessions/${session.body.session_id}/turns`;
  const post = async (content: string) => (await request(h.app).post(turnsUrl).set("API-KEY", apiKey).send({ role: "user", content })).body;

  const mixed = await post(MIXED);
  expect(mixed.extraction).toMatchObject({
    status: "awaiting_model",
    stage: "heuristic",
    awaiting_model: { work_item_id: expect.any(String) },
  });
  expect(mixed.diff.attributes).toEqual([expect.objectContaining({ entity: "Carol", key: "role", value: "CFO" })]);
  const sure = await post("I'm Alice, CTO at Acme.");
  expect(sure.extraction).toEqual({ status: "committed", stage: "heuristic" });
  await post("thanks, see you");

  // The rules' facts are memory, quoted from the turn; its text stays searchable.
  const before = await h.api.db.assertion.findMany({ where: { turnId: mixed.turn_id } });
  expect(before.map((a) => [a.predicate, a.quote]).sort()).toEqual([
    ["role", "Carol is the CFO at Acme"],
    ["works_at", "Carol is the CFO at Acme"],
  ]);
  const found = await request(h.app).post(`/api/v1/${contextId}/query`).set("API-KEY", apiKey).send({ query: "audit" });
  expect(JSON.stringify(found.body)).toContain("worries about the audit");

  // Nothing failed: not in the failed list, the dashboard, nor the failure series; awaiting counts apart.
  const failed = await request(h.app).get("/api/v1/admin/work-items?status=failed,dead").set("Authorization", `Bearer ${ADMIN_KEY}`);
  expect(failed.body.work_items).toEqual([]);
  const overview = (await request(createServerApp(h.api)).get("/admin/overview.json").auth("ops", ADMIN_KEY)).body;
  expect(overview.failed).toEqual([]);
  expect(overview.awaiting_model).toMatchObject({ total: 1, turns: 1, by_context: [{ context_id: contextId, count: 1 }] });
  const metrics = (await request(h.app).get("/metrics")).text;
  expect(metrics).toMatch(/recall_work_items_awaiting_model\{queue="extract_assertions",subject_type="turn"\} 1\b/);

  // Refused clearly: an unknown field, and a real run while no model is configured.
  const unknown = await admin(h.app, "/api/v1/admin/work-items/extract-again").send({ dryrun: true });
  expect(unknown.status).toBe(400);
  expect(JSON.stringify(unknown.body)).toContain("dryrun");
  const noModel = await admin(h.app, "/api/v1/admin/work-items/extract-again").send({ context_id: contextId });
  expect(noModel.status).toBe(409);
  expect(noModel.body.detail).toMatch(/RECALL_FAST_MODEL/);

  // A model is configured (workers and API redeployed with it); nothing runs until the operator asks.
  const withModel = { RECALL_FAST_MODEL: "openai-compatible:llama3:8b", RECALL_MODEL_PRICES_JSON: '{"openai-compatible:llama3:8b":"1/2"}' };
  await restartWorkers(withModel);
  modelApi = bootstrapApi(configOf(withModel));
  const app = createApp(modelApi);
  expect(llm.requests).toHaveLength(0);
  const dry = await admin(app, "/api/v1/admin/work-items/extract-again").send({ context_id: contextId, dry_run: true });
  expect(dry.status).toBe(200);
  expect(dry.body).toMatchObject({
    dry_run: true,
    matched: 1,
    inputs: 1,
    queued: 0,
    model_calls: { total: 1, windows: 1 },
    estimate: { model: "openai-compatible:llama3:8b", priced: true, cost_usd: expect.any(Number) },
  });
  expect(dry.body.estimate.input_tokens).toBeGreaterThan(0);

  const quote = (q: string) => q;
  llm.script({
    json: {
      entities: [{ turn: 0, name: "Carol", type: "person", memory_category: "knowledge", aliases: [] }],
      attributes: [
        {
          turn: 0,
          entity: "Carol",
          key: "role",
          value: "CFO",
          memory_category: "knowledge",
          evidence: quote("Carol is the CFO at Acme"),
          confidence: 0.9,
          significance: "high",
          valid_from: null,
          valid_to: null,
        },
        {
          turn: 0,
          entity: "Carol",
          key: "worries_about",
          value: "the audit",
          memory_category: "context",
          evidence: quote("Carol worries about the audit"),
          confidence: 0.9,
          significance: "medium",
          valid_from: null,
          valid_to: null,
        },
      ],
      relations: [
        {
          turn: 0,
          subject: "Carol",
          verb: "works_at",
          object: "Acme",
          memory_category: "knowledge",
          evidence: quote("Carol is the CFO at Acme"),
          confidence: 0.9,
          significance: "high",
          valid_from: null,
          valid_to: null,
        },
      ],
      instructions: [],
      revocations: [],
      uncertainties: [],
    },
    usage: { inputTokens: 400, outputTokens: 80 },
  });
  const run = await admin(app, "/api/v1/admin/work-items/extract-again").send({ context_id: contextId });
  expect(run.status).toBe(200);
  expect(run.body).toMatchObject({ dry_run: false, queued: 1, remaining: 0 });

  const status = `${turnsUrl}/${mixed.turn_id}/status`;
  const done = await waitFor(
    async () => {
      const body = (await request(h.app).get(status).set("API-KEY", apiKey)).body;
      return body.extraction?.status === "committed" ? body : undefined;
    },
    { what: "the turn committed after extract-again", timeoutMs: 30_000 },
  );
  expect(llm.requests).toHaveLength(1);
  expect(done.diff.attributes.map((a: { key: string }) => a.key).sort()).toEqual(["role", "worries_about"]);

  // The rest is committed; what the rules committed is not committed twice.
  const after = await h.api.db.assertion.findMany({ where: { turnId: mixed.turn_id } });
  expect(after.map((a) => a.predicate).sort()).toEqual(["role", "works_at", "worries_about"]);
  expect(await h.api.db.attribute.count({ where: { contextId, key: "role", value: "CFO" } })).toBe(1);
  expect(await h.api.db.relation.count({ where: { contextId, predicate: "works_at" } })).toBe(2); // Carol's and Alice's
  expect(await h.api.db.entity.count({ where: { contextId, name: "Carol" } })).toBe(1);
  const items = await h.api.db.workItem.findMany({ where: { subjectId: mixed.turn_id } });
  expect(items.filter((i) => i.status !== "succeeded")).toEqual([]);
  const again = await admin(app, "/api/v1/admin/work-items/extract-again").send({ context_id: contextId, dry_run: true });
  expect(again.body).toMatchObject({ matched: 0, inputs: 0 });
  expect((await request(h.app).get("/metrics")).text).toMatch(
    /recall_work_items_awaiting_model\{queue="extract_assertions",subject_type="turn"\} 0\b/,
  );
});
