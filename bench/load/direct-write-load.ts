// Direct writes at the cap beside a reader (issue 21): 10 parallel POST /facts, each with
// RECALL_FACT_WRITE_MAX_ITEMS attributes, into one context, while another context's /profile is
// read over and over. Reports the reader's p50 idle and under the writes (goal: within 3x), each
// write's status and wall time, and audits Postgres afterwards (every answered write committed
// once, no orphaned candidates, nothing left running). Loopback only, bounded: one run of the
// writes. `pnpm exec tsx bench/load/direct-write-load.ts`; DIRECT_WRITES (10), DIRECT_WRITE_ITEMS
// (the cap) and DIRECT_WRITE_CAP (the service's cap; default its own default) change the shape.
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { Client } from "pg";
import { startService } from "../shared/bench-service";
import { BENCH_ADMIN_KEY } from "../shared/bench-service";
import { call, newContext, percentiles, type Api } from "../perf/perf-client";

const WRITES = Number(process.env.DIRECT_WRITES ?? 10);
const IDLE_READS = 60;

async function main(): Promise<void> {
  const cap = process.env.DIRECT_WRITE_CAP;
  const service = await startService(cap ? { RECALL_FACT_WRITE_MAX_ITEMS: cap } : {});
  try {
    const items = Number(process.env.DIRECT_WRITE_ITEMS ?? service.config.RECALL_FACT_WRITE_MAX_ITEMS);
    const writer = await newContext(service.baseUrl, BENCH_ADMIN_KEY);
    const reader = await newContext(service.baseUrl, BENCH_ADMIN_KEY);
    await seedReader(reader);
    const idle = await readProfiles(reader, IDLE_READS);
    const loaded = { times: [] as number[], done: false };
    const reading = (async () => {
      while (!loaded.done) loaded.times.push(...(await readProfiles(reader, 1)));
    })();
    const started = performance.now();
    const writes = await Promise.all(Array.from({ length: WRITES }, (_, w) => timedWrite(writer, w, items)));
    const wallMs = performance.now() - started;
    loaded.done = true;
    await reading;
    const audit = await auditWrites(service.config.DATABASE_URL, writer.contextId);
    report({ items, idle, loaded: loaded.times, writes, wallMs, audit });
  } finally {
    await service.close();
  }
}

/** The reader's context holds a profile worth reading: a few entities with attributes. */
async function seedReader(reader: Api): Promise<void> {
  const attributes = Array.from({ length: 40 }, (_, i) => ({
    entity: `Person ${i % 8}`,
    key: `skill_${i}`,
    value: `level ${i}`,
    memory_category: "knowledge",
  }));
  const res = await call(reader, "POST", "/facts", { scope: ["org=bench"], attributes });
  if (res.status !== 201) throw new Error(`seeding the reader answered ${res.status}: ${JSON.stringify(res.body)}`);
}

async function readProfiles(reader: Api, n: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const res = await call(reader, "GET", "/profile?scope[org]=bench");
    if (res.status !== 200) throw new Error(`/profile answered ${res.status}`);
    times.push(performance.now() - started);
  }
  return times;
}

interface WriteOutcome {
  status: number;
  ms: number;
}

/** One write of `items` attributes, retried as @recall/client would (429/503 after Retry-After) under one Idempotency-Key. */
async function timedWrite(writer: Api, w: number, items: number): Promise<WriteOutcome> {
  const attributes = Array.from({ length: items }, (_, i) => ({
    entity: `Service ${w}-${i % 20}`,
    key: `setting_${i}`,
    value: `value ${w}.${i}`,
    memory_category: "knowledge",
  }));
  const key = randomUUID();
  const started = performance.now();
  for (;;) {
    const res = await fetch(`${writer.baseUrl}/api/v1/${writer.contextId}/facts`, {
      method: "POST",
      headers: { "api-key": writer.apiKey, "content-type": "application/json", "idempotency-key": key },
      body: JSON.stringify({ scope: ["org=bench"], attributes }),
    });
    await res.arrayBuffer();
    const retryAfter = Number(res.headers.get("retry-after") ?? 0);
    if ((res.status === 429 || res.status === 503) && retryAfter > 0) {
      await new Promise((resolve) => setTimeout(resolve, retryAfter * 1_000));
      continue;
    }
    return { status: res.status, ms: performance.now() - started };
  }
}

interface Audit {
  factWrites: number;
  attributes: number;
  orphanedCandidates: number;
  notSucceeded: number;
}

async function auditWrites(databaseUrl: string, contextId: string): Promise<Audit> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const one = async (sql: string) => Number((await db.query(sql, [contextId])).rows[0].n);
    return {
      factWrites: await one("SELECT count(*) n FROM fact_writes WHERE context_id = $1"),
      attributes: await one("SELECT count(*) n FROM attributes WHERE context_id = $1"),
      orphanedCandidates: await one("SELECT count(*) n FROM knowledge_candidates WHERE context_id = $1 AND status <> 'committed'"),
      notSucceeded: await one("SELECT count(*) n FROM work_items WHERE context_id = $1 AND status NOT IN ('succeeded')"),
    };
  } finally {
    await db.end();
  }
}

function report(r: { items: number; idle: number[]; loaded: number[]; writes: WriteOutcome[]; wallMs: number; audit: Audit }): void {
  const idle = percentiles(r.idle).p50;
  const loaded = percentiles(r.loaded).p50;
  const statuses = r.writes.reduce<Record<number, number>>((acc, w) => ({ ...acc, [w.status]: (acc[w.status] ?? 0) + 1 }), {});
  const writeMs = percentiles(r.writes.map((w) => w.ms));
  console.log(`${WRITES} parallel direct writes of ${r.items} attributes each, beside another context's /profile`);
  console.log(
    `  /profile p50 idle ${idle.toFixed(1)} ms, under the writes ${loaded.toFixed(1)} ms (${r.loaded.length} reads): ${(loaded / idle).toFixed(2)}x (goal <= 3x)`,
  );
  console.log(
    `  writes: statuses ${JSON.stringify(statuses)}, wall p50 ${writeMs.p50.toFixed(0)} ms, max ${Math.max(...r.writes.map((w) => w.ms)).toFixed(0)} ms, all done in ${r.wallMs.toFixed(0)} ms`,
  );
  console.log(
    `  audit: ${JSON.stringify(r.audit)} (expected ${WRITES} fact writes, ${WRITES * r.items} attributes, 0 orphaned, 0 not succeeded)`,
  );
}

main().catch((err: Error) => {
  console.error(err);
  process.exit(1);
});
