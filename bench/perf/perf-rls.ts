// pnpm bench, section `rls`: what row-level security costs, measured in one run. Two Recalls run side by side, each
// on a fresh database: one as the service role (the policies hold every statement: the default), one as the
// connecting superuser (`RECALL_DB_ROLE=none`: no policy applies). Only one is driven at a time, in BENCH_RLS_ROUNDS
// (20) rounds in the order on, off, off, on, on, off, …: each round posts BENCH_RLS_ROUND_TURNS (10) sequential
// interactive turns, then as many POST /query and GET /profile in turn over what that Recall has stored. So a
// machine whose speed drifts during the run (a shared one does, by a third between minutes) weighs on both alike.
// Printed: p50 of each figure over all its rounds, with the policies over without (issue 29's goal: ≤ 1.05 for the
// turn and /query).
import { performance } from "node:perf_hooks";
import { startEconomyServer } from "../economy/economy-server";
import { ADMIN, startCluster } from "./perf-cluster";
import { benchTurns, call, cycle, fmt, newContext, newSession, percentiles, postTurn, type Api } from "./perf-client";

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

const FIGURES = ["turn", "/query", "/profile"] as const;
type Figure = (typeof FIGURES)[number];

/** Questions a user might ask of what the bench's turns say. */
const QUESTIONS = [
  "When did she go to the support group?",
  "What does he do to relax?",
  "Where did they travel last summer?",
  "What books does she like to read?",
  "Who painted the picture?",
  "What is his job?",
];

async function timed(fn: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

async function readOk(api: Api, method: string, route: string, body?: object): Promise<void> {
  const res = await call(api, method, route, body);
  if (res.status !== 200) throw new Error(`rls: ${method} ${route} answered ${res.status}`);
}

/** One Recall under test, with the samples of its rounds. */
interface Side {
  api: Api;
  session: string;
  times: Record<Figure, number[]>;
}

async function round(side: Side, turns: { text: string; speaker: string }[], offset: number, record: boolean): Promise<void> {
  for (const t of turns) {
    const r = await postTurn(side.api, side.session, t);
    if (r.status !== "committed") throw new Error(`rls: a turn ended ${r.status}`);
    if (record) side.times.turn.push(r.ms);
  }
  for (let i = 0; i < turns.length; i++) {
    const body = { query: QUESTIONS[(offset + i) % QUESTIONS.length], scope: ["org=perf"], limit: 10 };
    const q = await timed(() => readOk(side.api, "POST", "/query", body));
    const p = await timed(() => readOk(side.api, "GET", "/profile?scope[org]=perf"));
    if (!record) continue;
    side.times["/query"].push(q);
    side.times["/profile"].push(p);
  }
}

export async function rlsSection(): Promise<void> {
  const [rounds, perRound] = [num("BENCH_RLS_ROUNDS", 20), num("BENCH_RLS_ROUND_TURNS", 10)];
  console.log(`\n## rls: row-level security on and off, two Recalls driven in turn, ${rounds} rounds of ${perRound} turns and reads`);
  const server = await startEconomyServer("empty", { chatDelayMs: 0 });
  const env = { RECALL_FAST_MODEL: "openai-compatible:bench-fast", OPENAI_BASE_URL: server.baseUrl };
  const basePort = num("BENCH_PORT", 8161);
  const clusters = await Promise.all([
    startCluster({ env, workers: [""], port: basePort }),
    startCluster({ env: { ...env, RECALL_DB_ROLE: "none" }, workers: [""], port: basePort + 1 }),
  ]);
  try {
    const sides: Record<"on" | "off", Side> = { on: undefined!, off: undefined! };
    for (const [name, cluster] of [
      ["on", clusters[0]],
      ["off", clusters[1]],
    ] as const) {
      const api = await newContext(cluster.baseUrl, ADMIN);
      sides[name] = { api, session: await newSession(api), times: { turn: [], "/query": [], "/profile": [] } };
    }
    const turns = cycle(benchTurns("any"), (rounds + 2) * perRound);
    const slice = (r: number) => turns.slice(r * perRound, (r + 1) * perRound);
    // Two warm-up rounds each (JIT, plan caches, the first scrape of every pool), not recorded.
    for (const r of [0, 1]) for (const side of [sides.on, sides.off]) await round(side, slice(r), r * perRound, false);
    for (let r = 0; r < rounds; r++) {
      const name = r % 4 === 0 || r % 4 === 3 ? "on" : "off";
      await round(sides[name], slice(r + 2), (r + 2) * perRound, true);
    }
    for (const f of FIGURES) {
      const [on, off] = [percentiles(sides.on.times[f]), percentiles(sides.off.times[f])];
      console.log(
        `  ${f}: p50 ${fmt(on.p50, 2)} ms with the policies, ${fmt(off.p50, 2)} ms without: ${fmt(on.p50 / off.p50, 3)}x` +
          ` (p95 ${fmt(on.p95 / off.p95, 3)}x; ${sides.on.times[f].length} samples each)`,
      );
    }
  } finally {
    await Promise.all(clusters.map((c) => c.close()));
    await server.close();
  }
}
