// Traces as an operator's collector receives them: the API and a worker as their own processes (what
// `npm start` runs, with the http, express, pg and ioredis instrumentations on), exporting OTLP/HTTP JSON to
// a receiver in this test. For one turn's whole path, every exported span's parent is itself exported (no
// span points at one that was never sent), routes are named as the OpenAPI document names them, the stage
// spans carry the context, subject and work-item ids and the work item's attempt, and no span carries the
// turn's words.
import http from "node:http";
import { loadConfig } from "@recall/config";
import { compiledEntry, createTestDatabase, freePort, testQueuePrefix, waitFor, type TestDatabase } from "@recall/test-support";
import { WorkerFleet } from "@recall/worker/testing";
import { QUEUE_NAMES } from "@recall/pipeline";
import { startApiProcess, type ApiProcess } from "../testing/api-process";

const ADMIN_KEY = "trace-export-admin-key";
/** Words only this test's turn says. */
const TURN_TEXT = "I'm Quillon Marwick, CTO at Zephyrine. Always respond in bullet points.";

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: { key: string; value: OtlpValue }[];
  events?: unknown[];
  status?: { code?: number; message?: string };
}
interface OtlpExport {
  resourceSpans?: { resource?: unknown; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

const received: { service: string; span: OtlpSpan }[] = [];
let receiver: http.Server;
let database: TestDatabase;
let api: ApiProcess;
let fleet: WorkerFleet;

beforeAll(async () => {
  const port = await freePort();
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as OtlpExport;
      for (const rs of body.resourceSpans ?? []) {
        const service = JSON.stringify(rs.resource ?? {}).match(/recall-test-(api|worker)/)?.[1] ?? "unknown";
        for (const ss of rs.scopeSpans ?? []) for (const span of ss.spans ?? []) received.push({ service, span });
      }
      res.writeHead(200, { "Content-Type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(port, "127.0.0.1", resolve));
  database = await createTestDatabase();
  const env = {
    DATABASE_URL: database.url,
    REDIS_URL: loadConfig().REDIS_URL,
    QUEUE_PREFIX: testQueuePrefix(),
    ADMIN_API_KEY: ADMIN_KEY,
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
    OTEL_SERVICE_NAME: "recall-test",
    // The batch processor's delay before it sends (the SDK reads it): short, so the test does not wait 5 s a batch.
    OTEL_BSP_SCHEDULE_DELAY: "200",
    LOG_LEVEL: "warn",
    WORKER_METRICS_PORT: "0",
  };
  fleet = new WorkerFleet({ env, groups: { all: QUEUE_NAMES }, compiled: await compiledEntry("apps/worker/src/main.ts") });
  fleet.startAll();
  api = await startApiProcess(env);
});

afterAll(async () => {
  await api?.terminate();
  await fleet?.stopAll();
  await new Promise((resolve) => receiver?.close(resolve));
  await database?.drop();
});

async function call(method: string, path: string, body: unknown, headers: Record<string, string>) {
  const res = await fetch(`${api.url}${path}`, {
    method,
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes?.find((a) => a.key === key)?.value;
  return value?.stringValue ?? (value?.intValue !== undefined ? Number(value.intValue) : undefined);
};

async function newContext(name: string) {
  const created = await call("POST", "/api/v1/contexts", { name }, { Authorization: `Bearer ${ADMIN_KEY}` });
  expect(created.status).toBe(201);
  const contextId = String(created.body["context_id"]);
  const key = { "API-KEY": String(created.body["api_key"]) };
  const session = await call("POST", `/api/v1/${contextId}/sessions`, {}, key);
  return { contextId, key, sessionId: String(session.body["session_id"]) };
}

test("a turn's exported trace: no orphan parents, routes in {param} form, ids on the spans, none of the turn's words", async () => {
  const { contextId, key, sessionId } = await newContext("traced");
  const turn = await call("POST", `/api/v1/${contextId}/sessions/${sessionId}/turns`, { role: "user", content: TURN_TEXT }, key);
  expect(turn.status).toBe(200);
  expect(turn.body["extraction"]).toMatchObject({ status: "committed" });
  const traceId = String(turn.body["trace_id"]);
  const turnId = String(turn.body["turn_id"]);

  const spans = await waitFor(
    async () => {
      const mine = received.filter((r) => r.span.traceId === traceId);
      return mine.some((r) => r.span.name === "process truth_maintenance") ? mine : undefined;
    },
    { what: "the turn's truth maintenance span to be exported", timeoutMs: 60_000 },
  );
  // The processes send in batches and a parent ends after its children: wait until every parent has arrived
  // (a parent that never does fails the wait, naming what was missing).
  const trace = await wholeTrace(traceId);
  expect(new Set(spans.map((r) => r.service))).toEqual(new Set(["api", "worker"]));
  expect(trace.filter((s) => !s.parentSpanId).map((s) => s.name)).toEqual(["POST /api/v1/{contextId}/sessions/{sessionId}/turns"]);

  expect(trace.map((s) => s.name).filter((name) => /\/:[A-Za-z]/.test(name))).toEqual([]);
  const routes = trace.map((s) => attribute(s, "http.route")).filter((r): r is string => typeof r === "string");
  expect(routes.filter((r) => r.includes("/:"))).toEqual([]);
  const request = trace.find((s) => !s.parentSpanId)!;
  expect(attribute(request, "recall.context_id")).toBe(contextId);
  // The request's handler names the turn it stored (on the span active there: Express's handler span).
  expect(trace.filter((s) => attribute(s, "recall.turn_id") === turnId).length).toBeGreaterThanOrEqual(1);

  const stages = trace.filter((s) => s.name.startsWith("process "));
  expect(stages.map((s) => s.name).sort()).toEqual(
    ["process commit_artifacts", "process extract_assertions", "process truth_maintenance", "process validate_artifacts"].sort(),
  );
  for (const stage of stages) {
    expect([stage.name, attribute(stage, "recall.context_id"), attribute(stage, "recall.subject_id")]).toEqual([
      stage.name,
      contextId,
      turnId,
    ]);
    expect([stage.name, attribute(stage, "recall.attempt")]).toEqual([stage.name, 1]);
    expect(typeof attribute(stage, "recall.work_item_id")).toBe("string");
  }

  // Not one word of the turn leaves with the spans: names, attributes, events and statuses alike.
  const everything = JSON.stringify(received.map((r) => r.span));
  for (const word of ["Quillon", "Marwick", "Zephyrine", "bullet points"]) expect([word, everything.includes(word)]).toEqual([word, false]);
});

test("an operator's retry runs in the item's trace, under a span that was exported, with the item's attempt number", async () => {
  const { contextId, key, sessionId } = await newContext("retried");
  // This turn needs a model and these processes have none: the rules' part commits and it awaits a model.
  const turn = await call(
    "POST",
    `/api/v1/${contextId}/sessions/${sessionId}/turns`,
    { role: "user", content: "Could you ask Ysolde Brackenridge about the Halvorsen renewal?" },
    key,
  );
  expect(turn.body["extraction"]).toMatchObject({ status: "awaiting_model" });
  const traceId = String(turn.body["trace_id"]);
  const workItemId = String((turn.body["extraction"] as { awaiting_model: { work_item_id: string } }).awaiting_model.work_item_id);
  const retried = await call("POST", `/api/v1/${contextId}/work-items/${workItemId}/retry`, {}, key);
  expect(retried.status).toBe(202);

  const runs = await waitFor(
    async () => {
      const mine = received.filter((r) => r.span.traceId === traceId && r.span.name === "process extract_assertions");
      return mine.length === 2 ? mine.map((r) => r.span) : undefined;
    },
    { what: "both runs of the extraction to be exported", timeoutMs: 60_000 },
  );
  const trace = await wholeTrace(traceId);
  expect(runs.map((s) => attribute(s, "recall.attempt")).sort()).toEqual([1, 2]);
  const words = JSON.stringify(trace);
  for (const word of ["Ysolde", "Brackenridge", "Halvorsen"]) expect([word, words.includes(word)]).toEqual([word, false]);
});

/** The trace's spans once none names a parent that was not exported: the test's wait for its batches. */
async function wholeTrace(traceId: string) {
  let orphans: string[] = [];
  return waitFor(
    async () => {
      const trace = received.filter((r) => r.span.traceId === traceId).map((r) => r.span);
      const exported = new Set(trace.map((s) => s.spanId));
      orphans = trace.filter((s) => s.parentSpanId && !exported.has(s.parentSpanId)).map((s) => s.name);
      return orphans.length === 0 ? trace : undefined;
    },
    { what: () => `every parent span to be exported (children without theirs: ${orphans.join(", ")})`, timeoutMs: 30_000 },
  );
}
