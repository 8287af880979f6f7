// /metrics of the API and of a worker as Prometheus reads them, on the first scrape of a fresh process: the text
// passes `promtool check metrics` (Debian's `prometheus` package; .ci/run installs it), and every recall_* family
// the process can know about has a sample, so an alert reads 0 rather than "no data" (docs/observability.md).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import request from "supertest";
import { freePort, spawnCompiledEntry, stopChild, waitFor, type SpawnedEntry } from "@recall/test-support";
import { startHarness, type Harness } from "../testing/harness";

const PROMTOOL = "/usr/bin/promtool";
const withPromtool = existsSync(PROMTOOL) ? test : test.skip;
if (!existsSync(PROMTOOL))
  console.warn(`metrics-exposition: ${PROMTOOL} is absent (apt-get install -y prometheus); the promtool checks are skipped`);

/**
 * Families whose labels name what has not happened yet on a fresh process: a model (none called), a read replica
 * (none configured), an HTTP route answered (the first scrape is counted once it is answered; a worker serves none).
 */
const UNTIL_IT_HAPPENS = [
  "recall_model_calls_total",
  "recall_model_tokens_total",
  "recall_model_cost_usd_total",
  "recall_replica_reads_total",
  "recall_replica_up",
  "recall_replica_lag_milliseconds",
  "recall_http_request_duration_seconds",
];

let h: Harness;
let worker: SpawnedEntry;
let workerPort: number;

beforeAll(async () => {
  // No workers in this process: the worker's endpoint is a process of its own.
  h = await startHarness({}, []);
  workerPort = await freePort();
  worker = await spawnCompiledEntry("apps/worker/src/main.ts", [], {
    ...process.env,
    DATABASE_URL: h.config.DATABASE_URL,
    REDIS_URL: h.config.REDIS_URL,
    QUEUE_PREFIX: h.config.QUEUE_PREFIX,
    WORKER_METRICS_PORT: String(workerPort),
    LOG_LEVEL: "info",
    NODE_ENV: "test",
  });
}, 120_000);

afterAll(async () => {
  await stopChild(worker?.child);
  await h?.close();
});

/** Metric families declared (`# TYPE`) with no sample line of their own. */
function familiesWithoutSamples(text: string): string[] {
  const declared = [...text.matchAll(/^# TYPE (recall_\w+) (\w+)$/gm)].map((m) => ({ name: m[1]!, type: m[2]! }));
  return declared
    .filter(({ name, type }) => {
      const sample = type === "histogram" ? `${name}_count` : name;
      return !new RegExp(`^${sample}(\\{| )`, "m").test(text);
    })
    .map((f) => f.name);
}

function promtool(text: string): { status: number | null; output: string } {
  const run = spawnSync(PROMTOOL, ["check", "metrics"], { input: text, encoding: "utf8" });
  return { status: run.status, output: `${run.stdout}${run.stderr}`.trim() };
}

async function firstWorkerScrape(): Promise<string> {
  return waitFor(
    async () => {
      if (worker.child.exitCode !== null) throw new Error(`the worker exited: ${worker.output()}`);
      return fetch(`http://127.0.0.1:${workerPort}/metrics`).then(
        (res) => (res.ok ? res.text() : undefined),
        () => undefined,
      );
    },
    { timeoutMs: 120_000, what: () => `the worker's /metrics: ${worker.output().slice(-2_000)}` },
  );
}

let apiText: string;
let workerText: string;

test("the first scrape of each process has a sample for every recall_* family it can know about", async () => {
  apiText = (await request(h.app).get("/metrics")).text;
  workerText = await firstWorkerScrape();
  expect(familiesWithoutSamples(apiText).filter((n) => !UNTIL_IT_HAPPENS.includes(n))).toEqual([]);
  expect(familiesWithoutSamples(workerText).filter((n) => !UNTIL_IT_HAPPENS.includes(n))).toEqual([]);
  // Both read Redis and Postgres at scrape time, and say so.
  for (const text of [apiText, workerText]) {
    expect(text).toMatch(/^recall_dependency_up\{dependency="redis"\} 1$/m);
    expect(text).toMatch(/^recall_dependency_up\{dependency="postgres"\} 1$/m);
    expect(text).toMatch(/^recall_queue_jobs\{queue="extract_assertions",state="waiting"\} 0$/m);
  }
});

withPromtool("promtool check metrics passes on the API's and the worker's /metrics", () => {
  expect({ api: promtool(apiText), worker: promtool(workerText) }).toEqual({
    api: { status: 0, output: "" },
    worker: { status: 0, output: "" },
  });
});
