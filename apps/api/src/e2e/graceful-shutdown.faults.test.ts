// Graceful shutdown (#12.8): SIGTERM to the API and to workers, each a process of its own.
// The API stops accepting (new connections refused; /readyz 503 with `accepting` false; a request
// that still arrives on an open connection gets 503 with Retry-After), answers what is in flight
// (a turn that commits in time gets its answer; one that cannot answers 202 pending at the bound
// and is committed by the workers later) and exits within SHUTDOWN_TIMEOUT_MS. A worker takes no
// new job, lets a stage that finishes in time finish, and hands back one that does not: its attempt
// closed as abandoned, its job waiting again with no retry spent, nothing half-committed; another
// worker then finishes it exactly once.
import { loadConfig } from "@recall/config";
import { QUEUE_NAMES, type QueueName } from "@recall/pipeline";
import {
  auditEffects,
  compiledEntry,
  createTestDatabase,
  describeEffects,
  promptText,
  testQueuePrefix,
  waitFor,
  type AcceptedInput,
  type TestDatabase,
} from "@recall/test-support";
import { markerAnswer, markerText, promptInput, type Marker } from "@recall/worker/testing";
import { WorkerFleet } from "@recall/worker/testing";
import { connects, pipelined, rawRequest, startApiProcess, type RawResponse } from "../testing/api-process";
import { FAULT_ADMIN_KEY, startFaultService, type FaultService } from "../testing/fault-service";

/** The bound the workers of this file get; the API's is set per process. */
const WORKER_SHUTDOWN_MS = 4_000;
const SLOW_MS = 12_000;
const FAST_MS = 1_000;

let database: TestDatabase;
let service: FaultService;
let ctx: { id: string; key: string };
const accepted: AcceptedInput[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  service = await startFaultService({
    databaseUrl: database.url,
    redisUrl: loadConfig().REDIS_URL,
    queuePrefix: testQueuePrefix(),
    processes: 1,
    overrides: { SHUTDOWN_TIMEOUT_MS: String(WORKER_SHUTDOWN_MS), RECALL_FAULT_DELAY_MS: "0" },
    compiledWorkers: true,
  });
  // Inputs naming a Sloth take longer than any bound here; the rest answer quickly.
  service.llm.respondWith((request) => {
    const prompt = promptText(request);
    return { json: markerAnswer(prompt), delayMs: /Sloth-\d{4}/.test(promptInput(prompt)) ? SLOW_MS : FAST_MS };
  });
  const res = await post(service.url, "/api/v1/contexts", { name: "shutdown" }, { Authorization: `Bearer ${FAULT_ADMIN_KEY}` });
  ctx = { id: String(res.body["context_id"]), key: String(res.body["api_key"]) };
  // A first document warms the worker up (parsers load on first use), so "finishes in time" below is about the stage.
  const warmUp = markers("Kestrel", 9);
  const doc = await document(warmUp);
  await waitFor(() => truthMaintained(doc), { what: "the warm-up document", timeoutMs: 90_000 });
  accepted.push(input("document", doc, warmUp));
});

afterAll(async () => {
  await service?.close();
  await database?.drop();
});

test("API: SIGTERM refuses new work, answers the turns in flight (committed, or 202 at the bound) and exits in time", async () => {
  const bound = 6_000;
  const api = await startApiProcess({ ...service.env, SHUTDOWN_TIMEOUT_MS: String(bound) });
  const headers = { "API-KEY": ctx.key };
  const session = String((await post(api.url, `/api/v1/${ctx.id}/sessions`, {}, headers)).body["session_id"]);
  const fast = markers("Kestrel", 1);
  const slow = markers("Sloth", 2);
  const turnPath = `/api/v1/${ctx.id}/sessions/${session}/turns`;
  let exit: Promise<{ ms: number; code: number | null }> | undefined;
  // Two kept-alive connections, each busy with a turn when SIGTERM arrives; each then sends one more request
  // (an answer while draining closes its connection, so one each).
  const draining = (async () => {
    await waitFor(async () => (await turnCount(session)) === 2, { what: "both turns to be stored" });
    exit = api.terminate();
    // The listener is closed first: from here on nobody can open a connection.
    await waitFor(async () => !(await connects(api.port)), { what: "the API to stop accepting connections", timeoutMs: 10_000 });
  })();
  const [[fastAnswer, readiness], [slowAnswer, refused]] = await Promise.all([
    pipelined(
      api.port,
      [rawRequest("POST", turnPath, headers, { role: "user", content: markerText(fast) }), rawRequest("GET", "/readyz")],
      () => draining,
    ),
    pipelined(
      api.port,
      [
        rawRequest("POST", turnPath, headers, { role: "user", content: markerText(slow) }),
        rawRequest("POST", `/api/v1/${ctx.id}/sessions`, headers, {}),
      ],
      () => draining,
    ),
  ]);
  const { ms, code } = await exit!;

  expect(json(fastAnswer!)).toMatchObject({ extraction: { status: "committed" } });
  expect(fastAnswer!.status).toBe(200);
  expect(readiness!.status).toBe(503);
  expect(json(readiness!)).toMatchObject({
    status: "not_ready",
    checks: expect.arrayContaining([expect.objectContaining({ name: "accepting", ok: false })]),
  });
  expect(refused!.status).toBe(503);
  expect(refused!.headers["retry-after"]).toBe("1");
  expect(json(refused!)).toMatchObject({ type: expect.stringMatching(/shutting_down$/) });
  // The slow turn could not finish within the bound: it is answered as pending, not dropped.
  expect(slowAnswer!.status).toBe(202);
  expect(json(slowAnswer!)).toMatchObject({ extraction: { status: "pending" } });
  expect(code).toBe(0);
  expect(ms).toBeGreaterThanOrEqual(bound - 500);
  expect(ms).toBeLessThan(bound + 5_000);
  console.log(`API exited ${ms} ms after SIGTERM (bound ${bound} ms)`);

  // Stored means kept: the workers commit the turn the API answered as pending.
  const slowId = String(json(slowAnswer!)["turn_id"]);
  await waitFor(() => truthMaintained(slowId), { what: "the pending turn to be committed", timeoutMs: 90_000 });
  accepted.push(input("turn", String(json(fastAnswer!)["turn_id"]), fast), input("turn", slowId, slow));
});

test("worker: SIGTERM lets a stage that finishes in time finish, hands back one that does not, and exits in time", async () => {
  const quick = markers("Kestrel", 3);
  const stuck = markers("Sloth", 4);
  const quickDoc = await document(quick);
  const stuckDoc = await document(stuck);
  await waitFor(async () => (await running("extract_assertions", [quickDoc, stuckDoc])).length === 2, {
    what: "both extractions to be running",
    timeoutMs: 60_000,
  });

  const { ms, code } = await service.fleet.terminate("w0");
  expect(code).toBe(0);
  expect(ms).toBeLessThan(WORKER_SHUTDOWN_MS + 5_000);
  console.log(`worker exited ${ms} ms after SIGTERM (bound ${WORKER_SHUTDOWN_MS} ms)`);

  // Finished within the bound: one attempt, succeeded.
  expect(await attempts("extract_assertions", quickDoc)).toEqual([[1, "succeeded", null]]);
  // Not finished: handed back, attempt abandoned, item queued, its job waiting with no retry spent.
  const [handed] = await attempts("extract_assertions", stuckDoc);
  expect(handed).toEqual([1, "failed", "abandoned"]);
  const item = await workItem("extract_assertions", stuckDoc);
  expect(item.status).toBe("queued");
  expect(item.error_message).toMatch(/^abandoned: handed back at shutdown/);
  // A document is background work: its job waits in its stage's background lane (packages/pipeline/src/priority.ts),
  // ranked by its context's fair share (fair-share.ts), so BullMQ holds it as prioritized.
  const job = await service.queues.background.extract_assertions.getJob(`wi-${item.id}`);
  expect(await job!.getState()).toBe("prioritized");
  expect(job!.attemptsMade).toBe(0);

  // The next worker runs the handed-back stage once more and the rest of both pipelines.
  service.llm.respondWith((request) => ({ json: markerAnswer(promptText(request)), delayMs: 200 }));
  service.fleet.start("w0");
  await waitFor(async () => (await truthMaintained(quickDoc)) && (await truthMaintained(stuckDoc)), {
    what: "both documents",
    timeoutMs: 90_000,
  });
  expect(await attempts("extract_assertions", stuckDoc)).toEqual([
    [1, "failed", "abandoned"],
    [2, "succeeded", null],
  ]);
  accepted.push(input("document", quickDoc, quick), input("document", stuckDoc, stuck));
});

test("worker: handed back mid-commit, nothing is half-committed, and the next worker commits exactly once", async () => {
  // A worker whose commit transaction pauses before it ends, longer than its shutdown bound.
  const pausing = new WorkerFleet({
    env: { ...service.env, RECALL_FAULT_DELAY_MS: "1500", SHUTDOWN_TIMEOUT_MS: "500" },
    groups: { pausing: QUEUE_NAMES },
    compiled: await compiledEntry("apps/worker/src/main.ts"),
  });
  await service.fleet.terminate("w0");
  pausing.startAll();
  await pausing.ready(service.queues);
  const facts = markers("Kestrel", 5);
  const doc = await document(facts);
  // SIGTERM while the commit transaction is open (paused at its fault point, just before it ends).
  await waitFor(async () => (await running("commit_artifacts", [doc])).length === 1 && (await openTransactions()) > 0, {
    what: "the commit transaction to be open",
    timeoutMs: 90_000,
  });
  const { code } = await pausing.terminate("pausing");
  expect(code).toBe(0);

  // All or nothing: the outbox row and the assertions are written in one transaction.
  const written = await counts(doc);
  expect([
    { outbox: 0, assertions: 0 },
    { outbox: 1, assertions: facts.length },
  ]).toContainEqual(written);
  const commit = await workItem("commit_artifacts", doc);
  expect(["queued", "succeeded"]).toContain(commit.status);

  service.fleet.start("w0");
  await waitFor(() => truthMaintained(doc), { what: "the document to be committed", timeoutMs: 90_000 });
  expect(await counts(doc)).toEqual({ outbox: 1, assertions: facts.length });
  accepted.push(input("document", doc, facts));

  const report = await auditEffects({ databaseUrl: database.url, accepted, jobState: service.jobState });
  console.log(describeEffects(report));
  expect({ missing: report.missing, duplicates: report.duplicates, stuck: report.stuck, failed: report.failed }).toEqual({
    missing: [],
    duplicates: [],
    stuck: [],
    failed: [],
  });
});

function markers(kind: string, n: number): Marker[] {
  const id = String(n).padStart(4, "0");
  return [{ subject: `${kind}-${id}`, verb: "feeds", object: `Heron-${id}`, sentence: `${kind}-${id} feeds Heron-${id}.` }];
}

function input(type: AcceptedInput["type"], id: string, facts: Marker[]): AcceptedInput {
  return { type, id, facts: facts.map((m) => ({ subject: m.subject, predicate: m.verb, object: m.object })) };
}

async function post(base: string, path: string, body: object, headers: Record<string, string>) {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function document(facts: Marker[]): Promise<string> {
  const res = await post(service.url, `/api/v1/${ctx.id}/documents`, { text: markerText(facts) }, { "API-KEY": ctx.key });
  expect(res.status).toBe(202);
  return String(res.body["document_id"]);
}

function json(res: RawResponse): Record<string, unknown> {
  return JSON.parse(res.body) as Record<string, unknown>;
}

async function rows<T extends object>(sql: string, values: unknown[]): Promise<T[]> {
  return (await service.pg.query<T>(sql, values)).rows;
}

async function openTransactions(): Promise<number> {
  const [row] = await rows<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction'`,
    [],
  );
  return row?.n ?? 0;
}

async function turnCount(sessionId: string): Promise<number> {
  const [row] = await rows<{ n: number }>(`SELECT count(*)::int AS n FROM turns WHERE session_id = $1`, [sessionId]);
  return row?.n ?? 0;
}

async function running(queue: QueueName, subjects: string[]): Promise<string[]> {
  const found = await rows<{ subject_id: string }>(
    `SELECT subject_id FROM work_items WHERE queue = $1 AND status = 'running' AND subject_id = ANY($2::uuid[])`,
    [queue, subjects],
  );
  return found.map((r) => r.subject_id);
}

async function truthMaintained(subjectId: string): Promise<boolean> {
  const [row] = await rows<{ status: string }>(
    `SELECT status::text AS status FROM work_items WHERE queue = 'truth_maintenance' AND subject_id = $1`,
    [subjectId],
  );
  return row?.status === "succeeded";
}

async function workItem(queue: QueueName, subjectId: string) {
  const [row] = await rows<{ id: string; status: string; error_message: string | null }>(
    `SELECT id, status::text AS status, error_message FROM work_items WHERE queue = $1 AND subject_id = $2`,
    [queue, subjectId],
  );
  return row!;
}

async function attempts(queue: QueueName, subjectId: string): Promise<[number, string, string | null][]> {
  const found = await rows<{ attempt: number; status: string; error_class: string | null }>(
    `SELECT a.attempt, a.status::text AS status, a.error_class::text AS error_class FROM work_attempts a
       JOIN work_items w ON w.id = a.work_item_id WHERE w.queue = $1 AND w.subject_id = $2 ORDER BY a.attempt`,
    [queue, subjectId],
  );
  return found.map((a) => [a.attempt, a.status, a.error_class]);
}

async function counts(documentId: string): Promise<{ outbox: number; assertions: number }> {
  const [row] = await rows<{ outbox: number; assertions: number }>(
    `SELECT (SELECT count(*)::int FROM outbox_events WHERE payload->>'subjectId' = $1) AS outbox,
            (SELECT count(*)::int FROM assertions WHERE document_id = $1::uuid) AS assertions`,
    [documentId],
  );
  return row!;
}
