// Redis lost mid-run (issue #12, point 2), against a private redis-server without persistence:
// flushed, and separately stopped and started again empty, while interactive turns,
// asynchronous turns, history batches and documents are being accepted and processed. Postgres
// is the record: ingest keeps accepting while Redis is down (202, or 200 once committed; never a
// 5xx), and the workers' sweeper puts every queued or retry-waiting item whose job vanished back
// on its queue. Afterwards every accepted input is committed exactly once.
import { PrivateRedis, startFakeLlmServer, waitFor, type FakeLlmServer } from "@recall/test-support";
import { lostJobsRequeued } from "@recall/telemetry";
import { contextClient, createContext, type ContextHandle } from "../testing/api-client";
import { startHarness, type Harness } from "../testing/harness";
import { MixedLoad, expectCommittedExactlyOnce, mixedLoadSettings } from "../testing/mixed-load";
import { probeEveryRoute, type ProbeAnswer } from "../testing/route-probe";

let redis: PrivateRedis;
let llm: FakeLlmServer;
let h: Harness;

beforeAll(async () => {
  redis = await PrivateRedis.start();
  llm = await startFakeLlmServer();
  h = await startHarness({ REDIS_URL: redis.url, ...mixedLoadSettings(llm) });
});

afterAll(async () => {
  await h?.close();
  await llm?.close();
  await redis?.close();
});

async function lostJobsRequeuedTotal(): Promise<number> {
  return (await lostJobsRequeued.get()).values.reduce((n, v) => n + v.value, 0);
}

/** Runs the load, injects `fault` once some inputs are in flight, and checks the outcome. */
async function runWithFault(name: string, fault: (load: MixedLoad, ctx: ContextHandle) => Promise<void>): Promise<MixedLoad> {
  const ctx = await createContext(h.app, name);
  const api = contextClient(h.app, ctx);
  const load = await MixedLoad.start(api);
  const requeuedBefore = await lostJobsRequeuedTotal();
  let stop = false;
  const running = Promise.all([1, 2, 3].map(() => load.runUntil(() => stop)));
  await waitFor(async () => load.accepted.length >= 12, { what: "inputs accepted", timeoutMs: 60_000 });
  const queued = () => h.api.db.workItem.count({ where: { contextId: ctx.contextId, status: "queued" } });
  await waitFor(async () => (await queued()) >= 5, { what: "work queued in Redis", timeoutMs: 60_000 });
  await fault(load, ctx);
  const afterFault = load.accepted.length;
  await waitFor(async () => load.accepted.length >= afterFault + 12, { what: "inputs after the fault", timeoutMs: 60_000 });
  stop = true;
  await running;

  expect(load.serverErrors()).toEqual([]);
  await expectCommittedExactlyOnce(load, h.api.db, ctx.contextId);
  // The fault did take jobs away: the sweeper put some back.
  expect(await lostJobsRequeuedTotal()).toBeGreaterThan(requeuedBefore);
  return load;
}

test("FLUSHALL mid-run: the sweeper re-enqueues lost jobs and every accepted input is committed exactly once", async () => {
  const load = await runWithFault("redis-flushed", async () => redis.flushAll());
  expect(load.accepted.length).toBeGreaterThanOrEqual(24);
  expect(new Set(load.accepted.map((a) => a.kind))).toEqual(new Set(["turn", "async_turn", "batch_turn", "document"]));
});

test("Redis stopped and started again empty mid-run: ingest keeps accepting into Postgres, and all of it is committed once", async () => {
  let acceptedWhileDown = 0;
  let probe: ProbeAnswer[] = [];
  await runWithFault("redis-restarted", async (load, ctx) => {
    await redis.stop();
    probe = await probeEveryRoute(h.app, { ...ctx, ids: { sessionId: load.accepted[0]!.sessionId! } });
    const before = load.accepted.length;
    // The outage lasts until inputs of every kind were accepted with Redis down.
    await waitFor(async () => load.accepted.length >= before + 10, { what: "inputs accepted while Redis is down", timeoutMs: 60_000 });
    acceptedWhileDown = load.accepted.length - before;
    await redis.start();
  });
  expect(acceptedWhileDown).toBeGreaterThanOrEqual(10);
  // No route answers 5xx for a Redis that is down, but readiness, which says so.
  expect(probe.length).toBeGreaterThan(30);
  expect(probe.filter((a) => a.status >= 500).map((a) => `${a.route} ${a.status}`)).toEqual(["GET /readyz 503"]);
  const readyz = probe.find((a) => a.route === "GET /readyz")!.body as { checks: { name: string; ok: boolean; error?: string }[] };
  expect(readyz.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(["redis", "workers"]);
  expect(readyz.checks.find((c) => c.name === "workers")).toMatchObject({ error: expect.stringContaining("Redis") });
});
