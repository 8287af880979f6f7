// One trace per input, asserted on the finished spans (in-memory exporter): the HTTP request,
// named by its route template, → publish → the extraction's job → the model call with its GenAI
// attributes, then the chained stages (validate, commit, truth maintenance), all under the trace id
// the turn answered with. A stage reached through its queue (its own job) is asserted in trace-export.
import { SpanKind } from "@opentelemetry/api";
import { initTracing, shutdownTracing } from "@recall/telemetry";
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@recall/telemetry/testing";
import { startFakeLlmServer, waitFor, type FakeLlmServer } from "@recall/test-support";
import { contextClient, createContext } from "../testing/api-client";
import { startHarness, type Harness } from "../testing/harness";

const exporter = new InMemorySpanExporter();
let h: Harness;
let llm: FakeLlmServer;

beforeAll(async () => {
  // Instrumentations hook Node's require, which Jest replaces: this test covers Recall's own spans.
  initTracing("recall-test", undefined, { spanProcessors: [new SimpleSpanProcessor(exporter)], instrument: false });
  llm = await startFakeLlmServer();
  h = await startHarness({
    RECALL_FAST_MODEL: "openai-compatible:llama3:8b",
    OPENAI_API_KEY: "test-openai-key",
    OPENAI_BASE_URL: llm.openaiBaseUrl,
    LLM_TIMEOUT_MS: "5000",
  });
});

afterAll(async () => {
  await h?.close();
  await llm?.close();
  await shutdownTracing();
});

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

test("a turn's trace: request → publish → extraction → model call → chained validate, commit, truth maintenance", async () => {
  const api = contextClient(h.app, await createContext(h.app, "traced"));
  const session = await api.session();
  // A fact, so truth maintenance has work to do (a commit without one creates its item done, with no job).
  const runsOn = { entity: "payments gateway", key: "runs_on", value: "Kubernetes", evidence: "which runs on Kubernetes" };
  llm.script({
    json: {
      entities: [{ name: "payments gateway", type: "product", memory_category: "knowledge", aliases: [] }],
      attributes: [{ ...runsOn, memory_category: "knowledge", confidence: 0.9, significance: "high", valid_from: null, valid_to: null }],
      relations: [],
      instructions: [],
      revocations: [],
      uncertainties: [],
    },
    usage: { inputTokens: 321, outputTokens: 12 },
  });
  const turn = await api.turn(session, "Priya's team owns the payments gateway, which runs on Kubernetes.", []);
  expect(turn.extraction).toMatchObject({ status: "committed", stage: "fast" });

  const spans = await waitFor(async () => {
    const mine = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === turn.trace_id);
    return mine.some((s) => s.name === "process truth_maintenance") ? mine : undefined;
  });
  const one = (name: string) => {
    const found = spans.filter((s) => s.name === name);
    expect(found.map((s) => s.name)).toEqual([name]);
    return found[0]!;
  };
  const request = one("POST /api/v1/{contextId}/sessions/{sessionId}/turns");
  expect(request.kind).toBe(SpanKind.SERVER);
  expect(request.attributes).toMatchObject({
    "http.route": "/api/v1/{contextId}/sessions/{sessionId}/turns",
    "http.response.status_code": 200,
  });
  expect(parentOf(request)).toBeUndefined();

  // The extraction is published by the request and processed as its child (a consumer of its queue).
  const publish = one("publish extract_assertions");
  const extract = one("process extract_assertions");
  expect([publish.kind, extract.kind]).toEqual([SpanKind.PRODUCER, SpanKind.CONSUMER]);
  expect(parentOf(publish)).toBe(request.spanContext().spanId);
  expect(parentOf(extract)).toBe(publish.spanContext().spanId);
  expect(extract.attributes).toMatchObject({ "messaging.system": "bullmq", "messaging.destination.name": "extract_assertions" });
  // The later stages run chained, in the extraction's job (docs/guarantees.md): a span each under the extraction's,
  // beside the publish of the guard job that would have taken the stage over had this process died.
  for (const queue of ["validate_artifacts", "commit_artifacts", "truth_maintenance"]) {
    const guard = one(`publish ${queue}`);
    const process = one(`process ${queue}`);
    expect([queue, guard.kind, process.kind]).toEqual([queue, SpanKind.PRODUCER, SpanKind.INTERNAL]);
    expect([queue, parentOf(guard), parentOf(process)]).toEqual([queue, extract.spanContext().spanId, extract.spanContext().spanId]);
    expect(process.attributes).toMatchObject({ "recall.chained": 1, "recall.queue": queue, "recall.attempt": 1 });
  }

  const chat = one("chat llama3:8b");
  expect(chat.kind).toBe(SpanKind.CLIENT);
  expect(parentOf(chat)).toBe(one("process extract_assertions").spanContext().spanId);
  expect(chat.attributes).toMatchObject({
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": "openai-compatible",
    "gen_ai.request.model": "llama3:8b",
    "gen_ai.usage.input_tokens": 321,
    "gen_ai.usage.output_tokens": 12,
    "recall.stage": "fast",
  });
});

test("a document's trace: each stage published by the one before it (its own job) and processed as its child", async () => {
  const api = contextClient(h.app, await createContext(h.app, "traced-document"));
  const runsOn = { entity: "ledger service", key: "runs_on", value: "Nomad", evidence: "runs on Nomad" };
  llm.script({
    json: {
      entities: [{ name: "ledger service", type: "product", memory_category: "knowledge", aliases: [] }],
      attributes: [{ ...runsOn, memory_category: "knowledge", confidence: 0.9, significance: "high", valid_from: null, valid_to: null }],
      relations: [],
      instructions: [],
      revocations: [],
      uncertainties: [],
    },
  });
  const posted = await api.post("/documents", { text: "# Ledger\n\nThe ledger service runs on Nomad." });
  expect(posted.status).toBe(202);
  const status = await api.get(`/documents/${posted.body.document_id}/status`);
  const traceId = String(status.body.trace_id);
  const spans = await waitFor(async () => {
    const mine = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    return mine.some((s) => s.name === "process truth_maintenance") ? mine : undefined;
  });
  const one = (name: string) => {
    const found = spans.filter((s) => s.name === name);
    expect(found.map((s) => s.name)).toEqual([name]);
    return found[0]!;
  };
  let parent: ReadableSpan | undefined;
  for (const queue of ["extract_assertions", "validate_artifacts", "commit_artifacts", "truth_maintenance"]) {
    const publish = one(`publish ${queue}`);
    const process = one(`process ${queue}`);
    expect([queue, publish.kind, process.kind]).toEqual([queue, SpanKind.PRODUCER, SpanKind.CONSUMER]);
    if (parent) expect([queue, parentOf(publish)]).toEqual([queue, parent.spanContext().spanId]);
    expect([queue, parentOf(process)]).toEqual([queue, publish.spanContext().spanId]);
    expect(process.attributes).toMatchObject({ "messaging.system": "bullmq", "messaging.destination.name": queue });
    expect(process.attributes["recall.chained"]).toBeUndefined();
    parent = process;
  }
});

test("a failing request and a failing model call record their errors", async () => {
  const api = contextClient(h.app, await createContext(h.app, "traced-errors"));
  llm.script({ status: 401, message: "invalid key" });
  const turn = await api.turn(await api.session(), "Jordan's group maintains the billing service on Nomad.", []);
  expect(turn.extraction).toMatchObject({ status: "failed" });
  // The turn answers once its work item is marked failed; the job's span ends a moment later.
  const spans = await waitFor(async () => {
    const mine = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === turn.trace_id);
    return mine.some((s) => s.name === "process extract_assertions") ? mine : undefined;
  });
  const chat = spans.find((s) => s.name === "chat llama3:8b")!;
  expect(chat.status.code).toBe(2);
  expect(chat.attributes["error.type"]).toBe("ProviderError");
  expect(chat.events.map((e) => e.name)).toContain("exception");
  const process = spans.find((s) => s.name === "process extract_assertions")!;
  // What failed, never what it said: the provider's message (which may quote the input) stays on the work item.
  expect(process.status).toMatchObject({ code: 2, message: expect.stringMatching(/ProviderError \(class provider.*status 401\)/) });
  expect(JSON.stringify([process.status, process.events, chat.status, chat.events])).not.toContain("invalid key");

  const notFound = await api.get("/work-items/00000000-0000-4000-8000-000000000000");
  expect(notFound.status).toBe(404);
  const route = await waitFor(async () =>
    exporter.getFinishedSpans().find((s) => s.name === "GET /api/v1/{contextId}/work-items/{workItemId}"),
  );
  expect(route.attributes["http.response.status_code"]).toBe(404);
});
