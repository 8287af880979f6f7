// pnpm bench, section `tenants`, part `exports` (#42): BENCH_TENANTS_STALLED (20) exports over two contexts whose
// clients read the headers and then stop reading, each context holding one BENCH_TENANTS_STALLED_MB (6) MB document
// (more than loopback's socket buffers take, so every export waits inside its snapshot for a drain that never comes).
// Meanwhile another context's turn, /profile and /query, each p50 as a ratio to the same requests just before (goal
// ≤ 2×), and /readyz (goal 200). The cluster runs with caps high enough to admit all of them (tenantsSection), so
// what is measured is the exports' own pool, not the caps refusing them; one more past the context cap shows the 429.
import http from "node:http";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { ADMIN, type Cluster } from "./perf-cluster";
import { fmt, newContext, newSession, percentiles, type Api } from "./perf-client";

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
/** A request that has not answered by then counts as timed out (status 0): the freeze of #42 answered after 15 s+. */
const REQUEST_TIMEOUT_MS = 20_000;

interface Stalled {
  status: number;
  req: http.ClientRequest;
}

/**
 * GET …/export, left unread past its headers; a refusal's body is read. Status 0: no headers within
 * REQUEST_TIMEOUT_MS (with the snapshots on the API's pool the 11th export waited for a connection for good).
 */
function openStalled(api: Api): Promise<Stalled> {
  const url = new URL(`${api.baseUrl}/api/v1/${api.contextId}/export`);
  return new Promise((resolve, reject) => {
    const req = http.get(
      { host: url.hostname, port: url.port, path: url.pathname, headers: { "api-key": api.apiKey }, agent: false },
      (res) => {
        clearTimeout(timer);
        res.on("error", () => undefined);
        if (res.statusCode !== 200) res.resume();
        resolve({ status: res.statusCode!, req });
      },
    );
    const timer = setTimeout(() => {
      resolve({ status: 0, req });
      req.destroy();
    }, REQUEST_TIMEOUT_MS);
    req.on("error", reject);
  });
}

/** One request of the other tenant: wall time and status (0: no answer within REQUEST_TIMEOUT_MS). */
async function timed(api: Api, method: string, route: string, body?: object): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  try {
    const res = await fetch(`${api.baseUrl}/api/v1/${api.contextId}${route}`, {
      method,
      headers: { "api-key": api.apiKey, "content-type": "application/json" },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    await res.arrayBuffer();
    return { ms: performance.now() - started, status: res.status };
  } catch {
    return { ms: performance.now() - started, status: 0 };
  }
}

type Route = "turn" | "profile" | "query";

/** `rounds` of a turn, GET /profile and POST /query, one after another; times by route and the statuses seen. */
async function otherTenant(other: Api, session: string, rounds: number) {
  const times: Record<Route, number[]> = { turn: [], profile: [], query: [] };
  const statuses = new Map<number, number>();
  for (let i = 0; i < rounds; i++) {
    const answers: [Route, { ms: number; status: number }][] = [
      [
        "turn",
        await timed(other, "POST", `/sessions/${session}/turns`, { role: "user", content: `Note ${i}: the Lisbon office opens at nine.` }),
      ],
      ["profile", await timed(other, "GET", "/profile")],
      ["query", await timed(other, "POST", "/query", { query: "Lisbon office" })],
    ];
    for (const [route, a] of answers) {
      times[route].push(a.ms);
      statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
    }
  }
  return { times, statuses };
}

async function idleInTransaction(db: pg.Client): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction'",
  );
  return rows[0]!.n;
}

/** Until `count` snapshots wait on their clients, or `ms` passed; answers how many did. */
async function snapshotsWaiting(db: pg.Client, count: number, ms: number): Promise<number> {
  const deadline = performance.now() + ms;
  for (;;) {
    const n = await idleInTransaction(db);
    if (n >= count || performance.now() > deadline) return n;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function stalledExportsPart(cluster: Cluster, db: pg.Client): Promise<void> {
  const n = num("BENCH_TENANTS_STALLED", 20);
  const bytes = num("BENCH_TENANTS_STALLED_MB", 6) * 1024 * 1024;
  const rounds = num("BENCH_TENANTS_STALLED_ROUNDS", 30);
  const contexts = [await newContext(cluster.baseUrl, ADMIN), await newContext(cluster.baseUrl, ADMIN)];
  for (const c of contexts)
    await db.query(
      "INSERT INTO documents (id, context_id, text, content_hash, trace_id) VALUES (gen_random_uuid(), $1::uuid, repeat('x', $2), 'bench', 'bench')",
      [c.contextId, bytes],
    );
  const other = await newContext(cluster.baseUrl, ADMIN);
  const session = await newSession(other);
  await otherTenant(other, session, 5);
  const before = await otherTenant(other, session, rounds);

  const stalled: Stalled[] = [];
  for (let i = 0; i < n; i++) stalled.push(await openStalled(contexts[i % 2]!));
  const open = stalled.filter((s) => s.status === 200).length;
  const opened = new Map<number, number>();
  for (const s of stalled) opened.set(s.status, (opened.get(s.status) ?? 0) + 1);
  const waiting = await snapshotsWaiting(db, open, 30_000);
  const during = await otherTenant(other, session, rounds);
  const readyz = await fetch(`${cluster.baseUrl}/readyz`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }).then(
    (r) => r.status,
    () => 0,
  );
  const oneMore = await openStalled(contexts[0]!);
  for (const s of [...stalled, oneMore]) s.req.destroy();

  const seen = (m: Map<number, number>) => [...m].map(([status, count]) => `${count} x ${status || "timeout"}`).join(", ");
  console.log(`\n## tenants: ${n} stalled exports over 2 contexts (${fmt(bytes / 1024 / 1024, 0)} MB each) beside another context`);
  console.log(
    `  exports answered ${seen(opened)}; snapshots waiting on their clients: ${waiting}; one more: ${oneMore.status || "timeout"}`,
  );
  for (const route of ["turn", "profile", "query"] as const) {
    const [b, d] = [percentiles(before.times[route]), percentiles(during.times[route])];
    console.log(
      `  other context's ${route} p50: ${fmt(d.p50)} ms during | ${fmt(b.p50)} ms before | ${fmt(d.p50 / b.p50, 2)}x (goal <= 2x)`,
    );
  }
  console.log(`  other context's answers during: ${seen(during.statuses)}; /readyz: ${readyz} (goal 200)`);
}
