// Redis lost mid-run (issue #12, point 2), against a private redis-server without persistence:
// flushed, and separately stopped and started again empty, while interactive turns,
// asynchronous turns, history batches and documents are being accepted and processed. Postgres
// is the record: ingest keeps accepting while Redis is down (202, or 200 once committed; never a
// 5xx), and the workers' sweeper puts every queued or retry-waiting item whose job vanished back
// on its queue. Afterwards every accepted input is committed exactly once.
import {
  PrivateRedis,
  auditExactlyOnce,
  exactlyOnceMismatches,
  startFakeLlmServer,
  waitFor,
  type FakeLlmServer,
} from "@recall/test-support";
import { lostJobsRequeued } from "@recall/telemetry";
import { contextClient, createContext } from "../testing/api-client";
import { startHarness, type Harness } from "../testing/harness";
import { MixedLoad, ledgerAnswer } from "../testing/mixed-load";

let redis: PrivateRedis;
let llm: FakeLlmServer;
let h: Harness;

beforeAll(async () => {
  redis = await PrivateRedis.start();
  llm = await startFakeLlmServer();
  // Slow enough that model-read inputs queue up behind each other: the fault finds jobs waiting.
  llm.script(...Array.from({ length: 1_000 }, () => ({ ...ledgerAnswer(), delayMs: 150 })));
  h = await startHarness({
    REDIS_URL: redis.url,
    RECALL_FAST_MODEL: "openai-compatible:test-fast",
    OPENAI_BASE_URL: llm.openaiBaseUrl,
    // One turn per window, so each asynchronous turn's facts are known (see mixed-load.ts).
    RECALL_WINDOW_MAX_TURNS: "1",
    RECALL_WINDOW_LINGER_MS: "200",
    RECALL_SWEEP_INTERVAL_MS: "500",
    RECALL_SWEEP_AFTER_MS: "1000",
    // An interactive turn whose job waits for the sweeper answers 202 pending after this.
    TURN_TIMEOUT_MS: "4000",
  });
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
async function runWithFault(name: string, fault: (load: MixedLoad) => Promise<void>): Promise<MixedLoad> {
  const ctx = await createContext(h.app, name);
  const api = contextClient(h.app, ctx);
  const load = await MixedLoad.start(api);
  const requeuedBefore = await lostJobsRequeuedTotal();
  let stop = false;
  const running = Promise.all([1, 2, 3].map(() => load.runUntil(() => stop)));
  await waitFor(async () => load.accepted.length >= 12, { what: "inputs accepted", timeoutMs: 60_000 });
  const queued = () => h.api.db.workItem.count({ where: { contextId: ctx.contextId, status: "queued" } });
  await waitFor(async () => (await queued()) >= 5, { what: "work queued in Redis", timeoutMs: 60_000 });
  await fault(load);
  const afterFault = load.accepted.length;
  await waitFor(async () => load.accepted.length >= afterFault + 12, { what: "inputs after the fault", timeoutMs: 60_000 });
  stop = true;
  await running;

  expect(load.serverErrors()).toEqual([]);
  const left = await waitFor(async () => ((await load.uncommitted()).length === 0 ? [] : undefined), {
    what: "every accepted input committed",
    timeoutMs: 90_000,
  }).catch(async (err: Error) => {
    throw new Error(`${err.message}: ${JSON.stringify((await load.uncommitted()).slice(0, 10))}`);
  });
  expect(left).toEqual([]);
  const audit = await auditExactlyOnce(h.api.db, ctx.contextId);
  expect(exactlyOnceMismatches(audit, load.accepted)).toEqual([]);
  expect(audit.duplicateAssertions).toEqual([]);
  expect(audit.duplicateOutbox).toEqual([]);
  expect(audit.itemsSucceededTwice).toEqual([]);
  expect(audit.unfinishedItems).toEqual([]);
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
  await runWithFault("redis-restarted", async (load) => {
    await redis.stop();
    const before = load.accepted.length;
    // The outage lasts until inputs of every kind were accepted with Redis down.
    await waitFor(async () => load.accepted.length >= before + 10, { what: "inputs accepted while Redis is down", timeoutMs: 60_000 });
    acceptedWhileDown = load.accepted.length - before;
    await redis.start();
  });
  expect(acceptedWhileDown).toBeGreaterThanOrEqual(10);
});
