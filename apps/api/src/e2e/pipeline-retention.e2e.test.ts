// Retention of the pipeline's records end to end: turns through the real pipeline (the rules and a model on the
// local wire-protocol server), their records moved 45 days back, then compacted as the workers' retention does.
// Usage (every grouping, the admin's too), a fact's provenance and a turn's status answer exactly as before, while the
// attempts, plans, announcements and model-call rows are gone. Real Postgres, Redis and workers.
import request from "supertest";
import { compactPipelineRecords } from "@recall/pipeline";
import { startFakeLlmServer, type FakeLlmServer } from "@recall/test-support";
import { contextClient, createContext, type ContextClient } from "../testing/api-client";
import { ADMIN_KEY, startHarness, type Harness } from "../testing/harness";

let h: Harness;
let llm: FakeLlmServer;

const MODEL = "openai-compatible:retention-fast";
const EMPTY = { entities: [], attributes: [], relations: [], instructions: [], revocations: [], uncertainties: [] };
const DAY_MS = 86_400_000;

beforeAll(async () => {
  llm = await startFakeLlmServer();
  llm.respondWith(() => ({ json: EMPTY, usage: { inputTokens: 1_234, outputTokens: 56 } }));
  h = await startHarness({
    RECALL_FAST_MODEL: MODEL,
    OPENAI_BASE_URL: llm.openaiBaseUrl,
    RECALL_MODEL_PRICES_JSON: JSON.stringify({ [MODEL]: "2.5/7.3" }),
  });
});

afterAll(async () => {
  await h?.close();
  await llm?.close();
});

/** Every pipeline record of the context, `days` earlier, as if written then. */
async function moveBack(contextId: string, days: number) {
  const by = `${days} days`;
  const db = h.api.db;
  await db.$executeRaw`UPDATE work_attempts a SET started_at = a.started_at - ${by}::interval, finished_at = a.finished_at - ${by}::interval
    FROM work_items w WHERE w.id = a.work_item_id AND w.context_id = ${contextId}::uuid`;
  await db.$executeRaw`UPDATE work_items SET created_at = created_at - ${by}::interval, started_at = started_at - ${by}::interval,
    finished_at = finished_at - ${by}::interval WHERE context_id = ${contextId}::uuid`;
  await db.$executeRaw`UPDATE model_calls SET created_at = created_at - ${by}::interval WHERE context_id = ${contextId}::uuid`;
  await db.$executeRaw`UPDATE outbox_events SET created_at = created_at - ${by}::interval, processed_at = processed_at - ${by}::interval
    WHERE context_id = ${contextId}::uuid`;
}

/** More calls on old days: several days, stages and models, fractions of a cent, and a model without a price. */
async function moreOldCalls(contextId: string) {
  await h.api.db.$executeRaw`
    INSERT INTO model_calls (id, context_id, work_item_id, attempt, queue, stage, model, outcome, input_tokens, output_tokens, cost_usd, created_at)
    SELECT gen_random_uuid(), ${contextId}::uuid, gen_random_uuid(), 1, 'extract_assertions',
      (ARRAY['fast', 'strong', 'disambiguation'])[1 + i % 3], CASE WHEN i % 4 = 0 THEN 'openai:unpriced' ELSE ${MODEL} END, 'ok',
      17 * i, 3 * i, CASE WHEN i % 4 = 0 THEN NULL ELSE i * 0.0000123457 END,
      now() - interval '40 days' - (i % 9) * interval '1 day' - (i * 13 % 1440) * interval '1 minute'
    FROM generate_series(1, 300) i`;
}

async function answers(api: ContextClient, paths: string[]) {
  const out: Record<string, unknown> = {};
  for (const path of paths) {
    const res = path.startsWith("/admin")
      ? await request(h.app).get(`/api/v1${path}`).set("Authorization", `Bearer ${ADMIN_KEY}`)
      : await api.get(path);
    expect([path, res.status]).toEqual([path, 200]);
    out[path] = res.body;
  }
  return out;
}

test("compaction keeps usage, provenance and turn status exactly, and drops attempts, plans, announcements and call rows", async () => {
  const ctx = await createContext(h.app, "retained");
  const other = await createContext(h.app, "recent");
  const api = contextClient(h.app, ctx);
  const session = await api.session();
  const modelTurn = await api.turn(session, "The bridge project in Porto was delayed because the steel supplier went bankrupt.", []);
  expect(modelTurn.extraction).toMatchObject({ status: "committed", stage: "fast" });
  const rulesTurn = await api.turn(session, "I'm Alice, CTO at Acme.", []);
  expect(rulesTurn.extraction).toMatchObject({ status: "committed", stage: "heuristic" });
  // Another context's turn stays recent: none of its records is touched.
  const otherApi = contextClient(h.app, other);
  await otherApi.turn(await otherApi.session(), "The launch moved to October after the audit found gaps.", []);

  await moveBack(ctx.contextId, 45);
  await moreOldCalls(ctx.contextId);
  const db = h.api.db;
  const [fact] = await db.$queryRaw<{ id: string }[]>`
    SELECT a.id::text FROM attributes a JOIN assertions s ON s.id = a.assertion_id WHERE s.context_id = ${ctx.contextId}::uuid`;
  expect(fact).toBeDefined();

  const day = (ms: number) => new Date(ms - (ms % DAY_MS)).toISOString();
  const range = `from=${day(Date.now() - 60 * DAY_MS)}&to=${day(Date.now() + DAY_MS)}`;
  const paths = [
    ...["day", "stage", "model"].map((g) => `/usage?${range}&group_by=${g}`),
    `/usage?from=${day(Date.now() - 46 * DAY_MS)}&to=${day(Date.now() - 44 * DAY_MS)}`,
    `/admin/usage?${range}&group_by=context`,
    `/facts/${fact!.id}/provenance`,
    `/sessions/${session}/turns/${modelTurn.turn_id}/status`,
    `/sessions/${session}/turns/${rulesTurn.turn_id}/status`,
  ];
  const before = await answers(api, paths);
  expect((before[paths[0]!] as { totals: { calls: number } }).totals.calls).toBe(301);
  const counts = () =>
    db.$queryRaw<{ calls: number; attempts: number; plans: number; outbox: number }[]>`
      SELECT (SELECT count(*)::int FROM model_calls WHERE context_id = c.id) AS calls,
        (SELECT count(*)::int FROM work_attempts a JOIN work_items w ON w.id = a.work_item_id WHERE w.context_id = c.id) AS attempts,
        (SELECT count(*)::int FROM extraction_plans WHERE context_id = c.id) AS plans,
        (SELECT count(*)::int FROM outbox_events WHERE context_id = c.id) AS outbox
      FROM contexts c WHERE c.id IN (${ctx.contextId}::uuid, ${other.contextId}::uuid) ORDER BY c.id = ${ctx.contextId}::uuid DESC`;
  const [mineBefore, otherBefore] = await counts();
  expect(mineBefore).toMatchObject({ calls: 301, plans: 2, outbox: 2 });

  // Through the workers' own pool (row-level security on), twice at once, in small batches.
  const options = { db: h.worker.deps.db, logger: h.worker.deps.logger, days: 30, batchRows: 3 };
  const runs = await Promise.all([compactPipelineRecords(options), compactPipelineRecords(options)]);
  expect(runs[0]!.modelCalls + runs[1]!.modelCalls).toBe(301);
  expect(runs[0]!.workItems + runs[1]!.workItems).toBe(8);

  expect(await answers(api, paths)).toEqual(before);
  expect(await counts()).toEqual([{ calls: 0, attempts: 0, plans: 0, outbox: 0 }, otherBefore]);
});
