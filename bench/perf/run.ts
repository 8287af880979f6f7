// pnpm bench — the performance report. Sections (BENCH_SECTIONS, comma-separated; default all):
//   latency     BENCH_LATENCY_TURNS (500) sequential turns, instant model, against the turn floor
//   throughput  BENCH_THROUGHPUT_TURNS (400) turns from BENCH_CLIENTS (8) clients, against the write floor
//   model       BENCH_MODEL_TURNS (120) model-bound turns (BENCH_MODEL_DELAY_MS 300), one extract process, from
//               BENCH_MODEL_CLIENTS clients (default 2 × processes × worker concurrency)
//   scaleout    the same with 1, 2 and 4 extract worker processes (BENCH_SCALEOUT=1,2,4)
//   rpm         BENCH_RPM (30) requests-per-minute limit across two extract processes (takes over a minute)
//   memory      RSS of API and worker after BENCH_MEMORY_TURNS (10,000) turns, growth from the half-way mark
//   hostile     a BENCH_HOSTILE_MB (5) MB Markdown without breaks beside another context's turns (perf-hostile.ts)
//   tenants     another context's turns during 4 bulk-approves of 500, a 50 MB one-line import, and its turns, /profile
//               and /query beside 20 stalled exports (perf-tenants.ts; BENCH_TENANTS_PARTS=bulk,exports)
//   rls         the turn, /query and /profile with row-level security on and off, two Recalls driven in turn (perf-rls.ts)
//   bulk        BENCH_BULK_TURNS (2,000) LoCoMo turns imported in batches of 500, instant model: turns/s and transactions per turn
//   replica     GET /profile through the replica path against the primary: a private primary and standby (perf-replica.ts)
//   reads       /profile and /query below
// Run only when named (not in the default list):
//   capacity    transactions, rows and bytes per turn and per read, the write floor and the turn budget of one
//               primary (perf-capacity.ts; docs/scaling.md); a few minutes
// The first five run real API and worker processes (perf-cluster.ts); see perf-sections.ts.
//
// reads: /profile and /query latency (p50, p99) over one context holding the five
// LoCoMo conversations, each as a ratio to a floor measured in the same run: the same
// number of indexed SELECTs issued directly to Postgres.
//   LOCOMO_DIR      data folder (default ../shared/data/locomo from the repo root)
//   BENCH_SAMPLES   requests per endpoint (default 300)
//   BENCH_LOAD      `service` (default): store turns and commit heuristic diffs with the
//                   service-level functions (bench-service-load.ts); `turns`: POST every
//                   turn through the real turn path (bench-load.ts), several minutes on 2 cores.
// No model is configured either way, so the heuristic stage does what it can.
import fs from "node:fs";
import os from "node:os";
import pg from "pg";
import { defaultLocomoDir, loadConversations as readConversations, type GateConversation } from "../shared/gate-locomo";
import { createBenchContext, loadConversations, scopeOf, type LoadSummary, type LoadedContext } from "../shared/bench-load";
import { countStatements, floorProbe, measure, type Latency, type Probe } from "./bench-measure";
import { loadQuestions } from "./bench-questions";
import { loadWithServices } from "../shared/bench-service-load";
import { BENCH_ADMIN_KEY, startService, type BenchService } from "../shared/bench-service";
import { hostileDocumentSection } from "./perf-hostile";
import { replicaSection } from "./perf-replica";
import { rlsSection } from "./perf-rls";
import { tenantsSection } from "./perf-tenants";
import { capacitySection } from "./perf-capacity";
import { bulkSection, latencySection, memorySection, modelBoundSection, rpmSection, throughputSection } from "./perf-sections";

const ALL = ["latency", "throughput", "model", "scaleout", "rpm", "memory", "hostile", "tenants", "rls", "bulk", "replica", "reads"];
/** Sections run only when BENCH_SECTIONS names them. */
const NAMED_ONLY = ["capacity"];

async function main(): Promise<void> {
  const sections = (process.env.BENCH_SECTIONS ?? ALL.join(",")).split(",").map((s) => s.trim());
  const known = [...ALL, ...NAMED_ONLY];
  const unknown = sections.filter((s) => !known.includes(s));
  if (unknown.length > 0) throw new Error(`BENCH_SECTIONS: unknown ${unknown.join(", ")}; choose from ${known.join(", ")}`);
  console.log(
    `# Recall performance report (${new Date().toISOString()}; ${os.cpus().length} CPUs, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB)`,
  );
  if (sections.includes("latency")) await latencySection();
  if (sections.includes("throughput")) await throughputSection();
  if (sections.includes("model")) await modelBoundSection([1]);
  if (sections.includes("scaleout")) await modelBoundSection((process.env.BENCH_SCALEOUT ?? "1,2,4").split(",").map(Number));
  if (sections.includes("rpm")) await rpmSection();
  if (sections.includes("memory")) await memorySection();
  if (sections.includes("hostile")) await hostileDocumentSection();
  if (sections.includes("tenants")) await tenantsSection();
  if (sections.includes("rls")) await rlsSection();
  if (sections.includes("bulk")) await bulkSection();
  if (sections.includes("replica")) await replicaSection();
  if (sections.includes("reads")) await readsSection();
  if (sections.includes("capacity")) await capacitySection();
}

async function readsSection(): Promise<void> {
  console.log("\n## reads: /profile and /query");
  const dir = defaultLocomoDir();
  if (!fs.existsSync(dir)) {
    console.log(`bench: no LoCoMo data at ${dir}; set LOCOMO_DIR to measure. Nothing to do.`);
    return;
  }
  const samples = Number(process.env.BENCH_SAMPLES ?? "300");
  const service = await startService();
  try {
    await run(service, dir, samples);
  } finally {
    await service.close();
  }
}

async function run(service: BenchService, dir: string, samples: number): Promise<void> {
  const conversations = readConversations(dir);
  const ctx: LoadedContext = { ...(await createBenchContext(service.baseUrl, BENCH_ADMIN_KEY)), scopes: new Map() };
  const turns = conversations.reduce((n, c) => n + c.turns.length, 0);
  const how = process.env.BENCH_LOAD === "turns" ? "POST /turns (the real turn path)" : "service-level functions (turn rows + writeFacts)";
  console.log(`loading ${turns} turns of ${conversations.length} conversations via ${how} …`);
  const load = await loadContext(service, ctx, conversations);
  console.log(`loaded in ${load.seconds.toFixed(0)} s: ${load.committed} commits succeeded, ${load.failed} failed`);
  await service.stopWorkers();
  const questions = loadQuestions(dir);
  const files = conversations.map((c) => c.file);
  const probes = [profileProbe(service.baseUrl, ctx, files), queryProbe(service.baseUrl, ctx, files, questions)];
  const pool = new pg.Pool({ connectionString: service.config.DATABASE_URL, max: 1 });
  try {
    // A running service's tables carry planner statistics (autovacuum analyses within a minute of a bulk load);
    // measuring before that would time plans made blind.
    await pool.query("ANALYZE");
    console.log(`the context holds ${await sizeOf(pool, ctx.contextId)}`);
    const prefix = ctx.apiKey.split("_")[1]!;
    for (const probe of probes) {
      await probe.run(0); // so the once-a-minute last_used_at write is not counted as part of a request
      await report(probe, floorProbe(pool, await countStatements(() => probe.run(0)), prefix), samples);
    }
  } finally {
    await pool.end();
  }
}

async function loadContext(service: BenchService, ctx: LoadedContext, conversations: GateConversation[]): Promise<LoadSummary> {
  if (process.env.BENCH_LOAD === "turns") return loadConversations(service.baseUrl, ctx, conversations);
  for (const c of conversations) ctx.scopes.set(c.file, scopeOf(c));
  return loadWithServices(service.config.DATABASE_URL, ctx.contextId, conversations);
}

async function sizeOf(pool: pg.Pool, contextId: string): Promise<string> {
  const tables = ["turns", "entities", "attributes", "relations", "instructions"];
  const counts = await Promise.all(
    tables.map(
      async (t) => (await pool.query(`SELECT count(*)::int AS n FROM ${t} WHERE context_id = $1`, [contextId])).rows[0].n as number,
    ),
  );
  return tables.map((t, i) => `${counts[i]} ${t}`).join(", ");
}

async function report(probe: Probe, floor: Probe, samples: number): Promise<void> {
  const [endpoint, base] = [await measure(probe, samples), await measure(floor, samples)];
  const ms = (l: Latency) => `p50 ${l.p50.toFixed(2)} ms, p99 ${l.p99.toFixed(2)} ms`;
  console.log(`${probe.name}: ${ms(endpoint)} | ${floor.name}: ${ms(base)}`);
  console.log(`  ratio to floor: p50 ${(endpoint.p50 / base.p50).toFixed(1)}x, p99 ${(endpoint.p99 / base.p99).toFixed(1)}x`);
}

function profileProbe(baseUrl: string, ctx: LoadedContext, files: string[]): Probe {
  return {
    name: "GET /profile",
    async run(i) {
      const scope = ctx.scopes.get(files[i % files.length]!)!;
      const qs = scope
        .map((s) => s.split("="))
        .map(([k, v]) => `scope[${k}]=${encodeURIComponent(v!)}`)
        .join("&");
      await expectOk(fetch(`${baseUrl}/api/v1/${ctx.contextId}/profile?${qs}`, { headers: { "api-key": ctx.apiKey } }));
    },
  };
}

function queryProbe(baseUrl: string, ctx: LoadedContext, files: string[], questions: Map<string, string[]>): Probe {
  return {
    name: "POST /query",
    async run(i) {
      const file = files[i % files.length]!;
      const asked = questions.get(file) ?? ["what happened"];
      const body = { query: asked[Math.floor(i / files.length) % asked.length], scope: ctx.scopes.get(file), limit: 10 };
      const init = { method: "POST", headers: { "api-key": ctx.apiKey, "content-type": "application/json" }, body: JSON.stringify(body) };
      await expectOk(fetch(`${baseUrl}/api/v1/${ctx.contextId}/query`, init));
    },
  };
}

async function expectOk(response: Promise<Response>): Promise<void> {
  const res = await response;
  if (!res.ok) throw new Error(`${res.url} answered ${res.status}: ${await res.text()}`);
  await res.arrayBuffer();
}

// Exits when done: a pool or socket a section left open must not keep the report running.
main().then(
  () => process.exit(0),
  (err: Error) => {
    console.error(err);
    process.exit(1);
  },
);
