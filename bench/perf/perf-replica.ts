// pnpm bench, section `replica`: GET /profile through the replica path against the primary, in one run (issue 34's
// goal: p50 ≤ 1.2×). A private primary and a streaming standby of it (the installed server binaries, as
// `pnpm test:replica` makes them), one Recall on the primary with DATABASE_REPLICA_URLS naming the standby, and a
// second API process of the same deployment without it. BENCH_REPLICA_TURNS (100) LoCoMo turns are stored, then
// BENCH_REPLICA_READS (300) profile reads go to each API in turn (replica, primary, replica, …), so a machine whose
// speed drifts weighs on both alike. Reads on the replica path carry no token; each must say it ran on the replica.
import { performance } from "node:perf_hooks";
import { PrivatePostgres } from "@recall/test-support";
import { startEconomyServer } from "../economy/economy-server";
import { ADMIN, startApi, startCluster } from "./perf-cluster";
import { benchTurns, cycle, fmt, newContext, newSession, percentiles, postTurn, type Api } from "./perf-client";

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

/** One GET /profile: its wall time and where it ran (`Recall-Served-By`; none without replicas). */
async function profile(api: Api): Promise<{ ms: number; servedBy: string | null }> {
  const started = performance.now();
  const res = await fetch(`${api.baseUrl}/api/v1/${api.contextId}/profile?scope[org]=perf`, { headers: { "api-key": api.apiKey } });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`replica: /profile answered ${res.status}`);
  return { ms: performance.now() - started, servedBy: res.headers.get("recall-served-by") };
}

export async function replicaSection(): Promise<void> {
  const [turns, reads] = [num("BENCH_REPLICA_TURNS", 100), num("BENCH_REPLICA_READS", 300)];
  console.log(`\n## replica: GET /profile through the replica path and on the primary, ${reads} reads each in turn`);
  const primary = await PrivatePostgres.start();
  const standby = await PrivatePostgres.standbyOf(primary);
  const model = await startEconomyServer("empty", { chatDelayMs: 0 });
  const port = num("BENCH_PORT", 8161);
  try {
    const cluster = await startCluster({
      env: { RECALL_FAST_MODEL: "openai-compatible:bench-fast", OPENAI_BASE_URL: model.baseUrl },
      workers: [""],
      port,
      server: primary.url(),
      replicas: [standby.url()],
    });
    const plain = await startApi(cluster, port + 1, { DATABASE_REPLICA_URLS: "" });
    try {
      const onReplica = await newContext(cluster.baseUrl, ADMIN);
      const session = await newSession(onReplica);
      for (const t of cycle(benchTurns("any"), turns)) await postTurn(onReplica, session, t);
      const onPrimary: Api = { ...onReplica, baseUrl: plain.baseUrl };
      const times = { replica: [] as number[], primary: [] as number[] };
      const where = new Map<string, number>();
      for (let i = 0; i < reads + 20; i++) {
        const r = await profile(onReplica);
        const p = await profile(onPrimary);
        where.set(`${r.servedBy}`, (where.get(`${r.servedBy}`) ?? 0) + 1);
        if (i < 20) continue; // warm-up: both pools connected, plans cached
        times.replica.push(r.ms);
        times.primary.push(p.ms);
      }
      const [r, p] = [percentiles(times.replica), percentiles(times.primary)];
      console.log(`  replica path: served by ${[...where].map(([k, v]) => `${k} ${v}`).join(", ")}`);
      for (const q of ["p50", "p95", "p99"] as const)
        console.log(
          `  ${q}: replica path ${fmt(r[q])} ms | primary ${fmt(p[q])} ms | ${fmt(r[q] / p[q], 2)}x${q === "p50" ? " | goal <= 1.2x" : ""}`,
        );
    } finally {
      await plain.close();
      await cluster.close();
    }
  } finally {
    await model.close();
    await standby.close();
    await primary.close();
  }
}
