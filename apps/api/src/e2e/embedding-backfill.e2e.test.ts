// Embedding backfill end to end: a turn stored before its vector was written (its vector removed here, as
// one stored before an embedding model was configured has none); the backfill embeds it (through the real OpenAI
// SDK against the local wire-protocol server), POST /query then finds it by meaning, a
// second run asks for nothing, and a change of dimensions re-embeds everything.
import { configWith, providerOptions } from "@recall/config";
import { createEmbeddingClient } from "@recall/llm";
import { backfillEmbeddings, scopeOf } from "@recall/memory";
import { defaultEmbedding, FAKE_EMBEDDING_DIMENSIONS, startFakeLlmServer, waitFor, type FakeLlmServer } from "@recall/test-support";
import { contextClient, createContext, type ContextClient, type ContextHandle } from "../testing/api-client";
import { startHarness, type Harness } from "../testing/harness";

const MODEL = "openai-compatible:embed-test";
const ALICE = ["org=acme", "user=alice"];
const HEURISTIC = "I'm Alice, CTO at Acme.";
const NEEDS_MODEL = "Priya from the platform team is taking over the gearbox audit after Lars leaves.";

let h: Harness;
let llm: FakeLlmServer;
let ctx: ContextHandle;
let api: ContextClient;

beforeAll(async () => {
  llm = await startFakeLlmServer();
  // An embedding model but no extraction model: turns that need one await it (awaiting_model).
  h = await startHarness({ RECALL_EMBEDDING_MODEL: MODEL, OPENAI_BASE_URL: llm.openaiBaseUrl, LLM_TIMEOUT_MS: "5000" });
  ctx = await createContext(h.app, "acme");
  api = contextClient(h.app, ctx);
});

afterAll(async () => {
  await h?.close();
  await llm?.close();
});

const embedder = (dimensions?: number) =>
  createEmbeddingClient(
    providerOptions(
      configWith({
        RECALL_EMBEDDING_MODEL: MODEL,
        OPENAI_BASE_URL: llm.openaiBaseUrl,
        ...(dimensions ? { RECALL_EMBEDDING_DIMENSIONS: String(dimensions) } : {}),
      }),
    ),
  )!;
const embeddedTexts = () => llm.requests.filter((r) => r.route === "embeddings").flatMap((r) => r.body.input as string[]);
const vectorsOf = (ownerId: string) => h.api.db.embedding.findMany({ where: { ownerId } });

test("a turn without a vector is embedded by the backfill, found by meaning, and not asked for twice", async () => {
  const session = await api.session();
  const committed = await api.turn(session, HEURISTIC, ALICE);
  const failed = await api.turn(session, NEEDS_MODEL, ALICE);
  expect(committed.extraction.status).toBe("committed");
  expect(failed.extraction.status).toBe("awaiting_model");
  await waitFor(async () => ((await vectorsOf(committed.turn_id)).length === 1 ? true : undefined), {
    what: "the committed turn embedded",
  });
  // The rules committed their part of the awaiting turn, so truth maintenance embedded it too. Its vector is removed,
  // as a turn stored before an embedding model was configured has none: the backfill's case.
  await waitFor(async () => ((await vectorsOf(failed.turn_id)).length === 1 ? true : undefined), {
    what: "the awaiting turn embedded",
  });
  await h.api.db.embedding.deleteMany({ where: { ownerId: failed.turn_id } });

  const before = embeddedTexts().length;
  const report = await backfillEmbeddings(h.api.db, embedder(), { contextId: ctx.contextId });

  expect(embeddedTexts().slice(before)).toEqual([NEEDS_MODEL]);
  expect(report).toMatchObject({ embedded: 1, calls: 1, tokensUsed: expect.any(Number) });
  const vectors = await vectorsOf(failed.turn_id);
  expect(vectors).toEqual([expect.objectContaining({ model: MODEL, dimensions: FAKE_EMBEDDING_DIMENSIONS, contextId: ctx.contextId })]);
  expect(await scopeOf(h.api.db, vectors[0]!.scopeSetId)).toEqual(ALICE);

  llm.embeddings.pin("who audits the gearbox", defaultEmbedding(NEEDS_MODEL));
  const res = await api.post("/query", { query: "who audits the gearbox", scope: ALICE, match: "all" });
  expect(res.status).toBe(200);
  expect(res.body.results).toContainEqual(
    expect.objectContaining({ kind: "turn", link: expect.objectContaining({ turn_id: failed.turn_id }) }),
  );

  const again = await backfillEmbeddings(h.api.db, embedder(), { contextId: ctx.contextId });
  expect(again).toEqual({ embedded: 0, tokensUsed: 0, calls: 0 });
});

test("after a change of dimensions every searchable row is embedded again at the new size, one row per owner", async () => {
  const owners = await h.api.db.embedding.count({ where: { contextId: ctx.contextId } });
  expect(owners).toBeGreaterThan(1);

  const report = await backfillEmbeddings(h.api.db, embedder(8), { contextId: ctx.contextId, dimensions: 8, batchSize: 2 });

  expect(report.embedded).toBe(owners);
  // One call per batch of two, within each kind of row.
  expect(report.calls).toBeGreaterThanOrEqual(Math.ceil(owners / 2));
  const rows = await h.api.db.embedding.findMany({ where: { contextId: ctx.contextId } });
  expect(rows).toHaveLength(owners);
  expect(rows.every((r) => r.dimensions === 8 && r.vector.length === 8)).toBe(true);
});
