// Postgres restarted mid-run (issue #12, point 3), against a private Postgres 15 of this test's
// own: stopped while turns, batches and documents are being accepted and processed, then
// started again. While it is down every route that needs it answers 503 with Retry-After and a
// problem+json body (never a 500, never a stack), /readyz answers 503 naming postgres, and the
// workers delay their jobs without spending attempts; once it is back /readyz answers 200, the
// workers recover, and every accepted input is committed exactly once, none of it dead.
import request from "supertest";
import { QUEUE_NAMES } from "@recall/pipeline";
import { PrivatePostgres, startFakeLlmServer, waitFor, type FakeLlmServer } from "@recall/test-support";
import { contextClient, createContext } from "../testing/api-client";
import { migratedDatabaseOn, startHarness, type Harness } from "../testing/harness";
import { MixedLoad, expectCommittedExactlyOnce, mixedLoadSettings } from "../testing/mixed-load";
import { probeEveryRoute, type ProbeAnswer } from "../testing/route-probe";

let pg: PrivatePostgres;
let llm: FakeLlmServer;
let h: Harness;

beforeAll(async () => {
  pg = await PrivatePostgres.start();
  const databaseUrl = await migratedDatabaseOn(pg);
  llm = await startFakeLlmServer();
  h = await startHarness({ DATABASE_URL: databaseUrl, ...mixedLoadSettings(llm) });
});

afterAll(async () => {
  await h?.close();
  await llm?.close();
  await pg?.close();
});

const readyz = async () => {
  const res = await request(h.app).get("/readyz");
  return { status: res.status, checks: res.body.checks as { name: string; ok: boolean; error?: string }[] };
};

/** A 503 as the outage promises it: Retry-After, problem+json naming the database, nothing internal. */
function outageAnswerProblems(a: ProbeAnswer): string[] {
  const problems: string[] = [];
  if (a.status !== 503) problems.push(`status ${a.status}`);
  if (!a.retryAfter || !(Number(a.retryAfter) > 0)) problems.push(`Retry-After ${a.retryAfter}`);
  if (!a.contentType?.startsWith("application/problem+json")) problems.push(`content type ${a.contentType}`);
  const body = a.body as { status?: number; type?: string; detail?: string };
  if (body.status !== 503 || !body.type?.endsWith("/database_unavailable")) problems.push(`body ${JSON.stringify(body)}`);
  if (/\bat .*\.(ts|js)|prisma|ECONNREFUSED|127\.0\.0\.1/i.test(JSON.stringify(body)))
    problems.push(`internals in ${JSON.stringify(body)}`);
  return problems.map((p) => `${a.route}: ${p}`);
}

/** Routes that answer without the database: the process is up, its own OpenAPI document and reference page, and its metrics. */
const WITHOUT_DATABASE = new Set([
  "GET /healthz",
  "GET /openapi.json",
  "GET /docs",
  "GET /docs/swagger-ui.css",
  "GET /docs/swagger-ui-bundle.js",
  "GET /docs/init.js",
  "GET /metrics",
]);

test("Postgres stopped mid-run: 503 + Retry-After on every route, /readyz names postgres, workers wait; all of it commits once after", async () => {
  const ctx = await createContext(h.app, "postgres-restart");
  const api = contextClient(h.app, ctx);
  const load = await MixedLoad.start(api);
  expect((await readyz()).status).toBe(200);
  let stop = false;
  const running = Promise.all([1, 2, 3].map(() => load.runUntil(() => stop)));
  await waitFor(async () => load.accepted.length >= 12, { what: "inputs accepted", timeoutMs: 60_000 });
  await waitFor(async () => (await h.api.db.workItem.count({ where: { status: "queued" } })) >= 5, { what: "work queued" });

  await pg.stop();
  const probe = await probeEveryRoute(h.app, {
    contextId: ctx.contextId,
    apiKey: ctx.apiKey,
    ids: { sessionId: load.accepted[0]!.sessionId! },
    bodies: { "POST /api/v1/contexts": { name: "during-outage" }, "POST /api/v1/contexts/{contextId}/config": { purpose: "probe" } },
  });
  const needDatabase = probe.filter((a) => !WITHOUT_DATABASE.has(a.route) && a.route !== "GET /readyz");
  expect(needDatabase.length).toBeGreaterThan(30);
  expect(needDatabase.flatMap(outageAnswerProblems)).toEqual([]);
  for (const route of WITHOUT_DATABASE) expect(probe.find((a) => a.route === route)?.status).toBe(200);
  // Metrics still answer, saying which dependency is down.
  const metrics = await request(h.app).get("/metrics");
  expect(metrics.status).toBe(200);
  expect(metrics.text).toMatch(/recall_dependency_up\{dependency="postgres"\} 0/);
  const down = await readyz();
  expect(down.status).toBe(503);
  expect(down.checks.find((c) => c.name === "postgres")).toMatchObject({ ok: false });
  expect(down.checks.find((c) => c.name === "redis")).toMatchObject({ ok: true });
  // Workers met the outage: jobs wait in `delayed` instead of failing their attempts.
  await waitFor(
    async () => {
      const counts = await Promise.all(QUEUE_NAMES.map((q) => h.api.queues[q].getJobCounts("delayed")));
      return counts.reduce((n, c) => n + (c.delayed ?? 0), 0) > 0;
    },
    { what: "jobs delayed by the outage", timeoutMs: 30_000 },
  );

  await pg.start();
  await waitFor(async () => (await readyz()).status === 200, { what: "/readyz 200 again", timeoutMs: 30_000 });
  const afterRestart = load.accepted.length;
  await waitFor(async () => load.accepted.length >= afterRestart + 8, { what: "inputs after the restart", timeoutMs: 60_000 });
  stop = true;
  await running;

  // The only 5xx the load saw are the outage's 503s.
  expect(load.serverErrors().filter((a) => a.status !== 503)).toEqual([]);
  await expectCommittedExactlyOnce(load, h.api.db, ctx.contextId);
});
