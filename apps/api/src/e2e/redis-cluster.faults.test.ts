// A real Redis Cluster (issue #12, point 9): three redis-server nodes in cluster mode joined by
// `redis-cli --cluster create`, REDIS_URL=redis-cluster://…, the API in this process and two
// worker processes (apps/worker/src/main.ts, every queue each), so each queue has two
// consumers in two processes. Interactive turns, asynchronous turns, batches and documents all
// commit; each queue's keys sit in one hash slot (the `{…}` prefix); and no work item ran twice:
// one attempt each, and the SQL audit finds no fact stated twice.
import { QUEUE_NAMES } from "@recall/pipeline";
import {
  PrivateRedisCluster,
  freePort,
  spawnCompiledEntry,
  startFakeLlmServer,
  stopChild,
  waitFor,
  type FakeLlmServer,
  type SpawnedEntry,
} from "@recall/test-support";
import { contextClient, createContext } from "../testing/api-client";
import { startHarness, type Harness } from "../testing/harness";
import { MixedLoad, expectCommittedExactlyOnce, mixedLoadSettings } from "../testing/mixed-load";

let cluster: PrivateRedisCluster;
let llm: FakeLlmServer;
let h: Harness;
const workers: SpawnedEntry[] = [];
/** Each worker process serves its own /metrics here: which of them ran which stages. */
const metricsPorts: number[] = [];

/** Stage attempts that succeeded in one worker process, per queue, from its own /metrics. */
async function succeededIn(port: number): Promise<Record<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const m of text.matchAll(/^recall_jobs_total\{([^}]*)\} (\d+)/gm)) {
    const labels = m[1]!;
    if (!labels.includes('outcome="succeeded"')) continue;
    const queue = /queue="([^"]+)"/.exec(labels)![1]!;
    counts[queue] = (counts[queue] ?? 0) + Number(m[2]);
  }
  return counts;
}

beforeAll(async () => {
  cluster = await PrivateRedisCluster.start();
  llm = await startFakeLlmServer();
  const settings = mixedLoadSettings(llm);
  // No workers in this process: only the two below consume the queues.
  h = await startHarness({ REDIS_URL: cluster.url, ...settings }, []);
  const env = {
    ...process.env,
    ...settings,
    DATABASE_URL: h.config.DATABASE_URL,
    REDIS_URL: cluster.url,
    QUEUE_PREFIX: h.config.QUEUE_PREFIX,
    OUTBOX_POLL_MS: "50",
    LOG_LEVEL: "warn",
    NODE_ENV: "test",
  };
  for (let i = 0; i < 2; i++) {
    const port = await freePort();
    metricsPorts.push(port);
    workers.push(await spawnCompiledEntry("apps/worker/src/main.ts", [], { ...env, WORKER_METRICS_PORT: String(port) }));
  }
  await waitFor(
    async () => {
      const counts = await Promise.all(QUEUE_NAMES.map((q) => h.api.queues[q].getWorkersCount()));
      return counts.every((n) => n === 2);
    },
    { what: "two worker processes on every queue", timeoutMs: 120_000 },
  ).catch((err: Error) => {
    throw new Error(`${err.message}\n${workers.map((w) => w.output()).join("\n---\n")}`);
  });
});

afterAll(async () => {
  await Promise.all(workers.map((w) => stopChild(w.child)));
  await h?.close();
  await llm?.close();
  await cluster?.close();
});

test("on a three-node Redis Cluster with two worker processes per queue, every input commits once", async () => {
  const ctx = await createContext(h.app, "redis-cluster");
  const load = await MixedLoad.start(contextClient(h.app, ctx));
  let stop = false;
  const running = Promise.all([1, 2].map(() => load.runUntil(() => stop)));
  await waitFor(async () => load.accepted.length >= 40, { what: "inputs accepted", timeoutMs: 120_000 });
  stop = true;
  await running;

  expect(load.serverErrors()).toEqual([]);
  await expectCommittedExactlyOnce(load, h.api.db, ctx.contextId, 120_000).catch((err: Error) => {
    throw new Error(`${err.message}\n${workers.map((w) => w.output().slice(-5_000)).join("\n---\n")}`);
  });
  // Nothing ran twice, nor needed a second try: one attempt per work item.
  const retried = await h.api.db.$queryRaw<{ queue: string; attempts: number }[]>`
    SELECT w.queue, count(*)::int AS attempts FROM work_attempts a JOIN work_items w ON w.id = a.work_item_id
    WHERE w.context_id = ${ctx.contextId}::uuid GROUP BY w.id, w.queue HAVING count(*) > 1`;
  expect(retried).toEqual([]);
  // Both processes took work from the queues every input goes through.
  const perProcess = await Promise.all(metricsPorts.map(succeededIn));
  for (const counts of perProcess) {
    for (const queue of ["extract_assertions", "validate_artifacts", "commit_artifacts", "truth_maintenance"]) {
      expect({ queue, ran: (counts[queue] ?? 0) > 0 }).toEqual({ queue, ran: true });
    }
  }

  // Every key of this deployment's queues lives in one slot, the prefix's hash tag's, so on one node.
  const prefix = h.config.QUEUE_PREFIX;
  const slot = cluster.nodes[0]!.cli("CLUSTER", "KEYSLOT", `${prefix}:extract_assertions:id`);
  const perNode = cluster.nodes.map((node) => ({
    keys: node.cli("--scan", "--pattern", `${prefix}:*`).split("\n").filter(Boolean).length,
    inSlot: Number(node.cli("CLUSTER", "COUNTKEYSINSLOT", slot)),
  }));
  const holders = perNode.filter((n) => n.keys > 0);
  expect(holders).toHaveLength(1);
  expect(holders[0]!.inSlot).toBe(holders[0]!.keys);
});
