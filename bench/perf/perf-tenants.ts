// pnpm bench, section `tenants`: one tenant's bulk work beside another tenant's interactive turns. Reported against
// the other tenant's turn p50 before the bulk work (same run; goal ≤ 3× in both cases):
//   - four bulk-approves of 500 reviews at once (BENCH_TENANTS_REVIEWS, 2,000 held reviews): review commits run in
//     the background lane, where contexts take turns (packages/pipeline/src/fair-share.ts);
//   - a BENCH_TENANTS_IMPORT_MB (50) MB import body of one line, sent back to back by one client (a flood: the API
//     refuses each as soon as the line passes its cap, and reads the lines in linear time);
//   - 20 exports whose clients stopped reading (perf-stalled-exports.ts; goal ≤ 2× and /readyz 200).
// BENCH_TENANTS_PARTS (default `bulk,exports`) picks the parts: `bulk` is the first two.
import { performance } from "node:perf_hooks";
import pg from "pg";
import { ADMIN, type Cluster } from "./perf-cluster";
import { benchTurns, call, concurrently, cycle, fmt, newContext, newSession, percentiles, postTurn, type Api } from "./perf-client";
import { withCluster } from "./perf-sections";
import { stalledExportsPart } from "./perf-stalled-exports";

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

/** The other tenant's turns, one after another, while `busy()` says the bulk work goes on (at least `min`). */
async function turnsWhile(other: Api, session: string, busy: () => Promise<boolean>, min = 20): Promise<number[]> {
  const turns = cycle(benchTurns("any"), 5_000);
  const times: number[] = [];
  for (let i = 0; i < min || (await busy()); i++) times.push((await postTurn(other, session, turns[i % turns.length]!)).ms);
  return times;
}

async function reviewCounts(db: pg.Client, contextId: string): Promise<Record<string, number>> {
  const { rows } = await db.query<{ status: string; n: string }>(
    "SELECT status::text, count(*) AS n FROM reviews WHERE context_id = $1::uuid GROUP BY status",
    [contextId],
  );
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

const SYLLABLES = ["ka", "lo", "mi", "ra", "ven", "tor", "sel", "dun"];

/** A distinct capitalised name for n, letters only (the rules read "I'm <Name>"; digits would not pass as one). */
function wordFor(n: number): string {
  let word = "";
  for (let k = n + 8; k > 0; k = Math.floor(k / 8)) word += SYLLABLES[k % 8];
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** A context whose extracted candidates wait for review, filled until it holds `target` pending reviews. */
async function heldReviews(cluster: Cluster, db: pg.Client, target: number): Promise<Api> {
  const held = await newContext(cluster.baseUrl, ADMIN);
  const config = await fetch(`${cluster.baseUrl}/api/v1/contexts/${held.contextId}/config`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
    body: JSON.stringify({ review: "required" }),
  });
  if (config.status !== 200) throw new Error(`config: ${config.status}`);
  const session = await newSession(held);
  let pending = 0;
  for (let round = 0; pending < target; round++) {
    const people = Array.from({ length: 100 }, (_, i) => wordFor(round * 100 + i));
    await concurrently(people, 8, async (name) => {
      await postTurn(held, session, { text: `I'm ${name} Marsh, CTO at ${name}corp. Always answer in French.`, speaker: name });
    });
    const now = (await reviewCounts(db, held.contextId)).pending ?? 0;
    if (now === pending) throw new Error("tenants: the turns were held for no review (are the rules reading them?)");
    pending = now;
  }
  return held;
}

/** Caps high enough that every stalled export is admitted: the part measures the exports' pool, not the caps. */
const ADMIT_STALLED = { RECALL_EXPORT_CONCURRENCY: "20", RECALL_EXPORT_CONTEXT_CONCURRENCY: "10" };

export async function tenantsSection(): Promise<void> {
  const parts = (process.env.BENCH_TENANTS_PARTS ?? "bulk,exports").split(",").map((p) => p.trim());
  await withCluster(0, [""], ADMIT_STALLED, async (cluster, other) => {
    const db = new pg.Client({ connectionString: cluster.databaseUrl });
    await db.connect();
    try {
      if (parts.includes("bulk")) await bulkParts(cluster, db, other);
      if (parts.includes("exports")) await stalledExportsPart(cluster, db);
    } finally {
      await db.end();
    }
  });
}

/** Bulk-approves, then one-line imports, beside the other tenant's turns. */
async function bulkParts(cluster: Cluster, db: pg.Client, other: Api): Promise<void> {
  const reviews = num("BENCH_TENANTS_REVIEWS", 2_000);
  const importMb = num("BENCH_TENANTS_IMPORT_MB", 50);
  const capMs = num("BENCH_TENANTS_CAP_MS", 300_000);
  const session = await newSession(other);
  await turnsWhile(other, session, async () => false, 20);
  const held = await heldReviews(cluster, db, reviews);
  const pending = (await reviewCounts(db, held.contextId)).pending ?? 0;
  console.log(`\n## tenants: another context's interactive turns beside one tenant's bulk work`);
  const baseline = percentiles(await turnsWhile(other, session, async () => false, 60));

  const started = performance.now();
  // Four disjoint sets of 500: four filters of `{}` at once would lock and approve the same oldest 500.
  const { rows } = await db.query<{ id: string }>(
    "SELECT id::text FROM reviews WHERE context_id = $1::uuid AND status = 'pending' ORDER BY seq LIMIT 2000",
    [held.contextId],
  );
  const sets = [0, 1, 2, 3].map((i) => rows.slice(i * 500, (i + 1) * 500).map((r) => r.id));
  const approvals = Promise.all(sets.map((ids) => call(held, "POST", "/reviews/bulk-approve", { review_ids: ids })));
  const approving = rows.length;
  // Until every approval sent is committed (pending ones left over are not part of the work).
  const committing = async () => {
    const counts = await reviewCounts(db, held.contextId);
    return (counts.committed ?? 0) < approving && performance.now() - started < capMs;
  };
  const during = percentiles(await turnsWhile(other, session, committing));
  const answers = await approvals;
  const seconds = (performance.now() - started) / 1_000;
  const counts = await reviewCounts(db, held.contextId);
  console.log(
    `  4 x bulk-approve 500 (${pending} held; answers ${answers.map((a) => a.status).join(",")}): committed ${counts.committed ?? 0} in ${fmt(seconds)} s`,
  );
  console.log(
    `  other context's turn p50: ${fmt(during.p50)} ms during | ${fmt(baseline.p50)} ms before | ${fmt(during.p50 / baseline.p50, 2)}x; p99 ${fmt(during.p99 / baseline.p99, 2)}x`,
  );

  const body = `{"kind":"header","x":"${"x".repeat(importMb * 1024 * 1024)}"}`;
  let imports = 0;
  let lastStatus = 0;
  let sending = true;
  const sender = (async () => {
    while (sending) {
      const res = await fetch(`${held.baseUrl}/api/v1/${held.contextId}/import`, {
        method: "POST",
        headers: { "api-key": held.apiKey, "content-type": "application/x-ndjson" },
        body,
      });
      lastStatus = res.status;
      await res.arrayBuffer();
      imports++;
    }
  })();
  const importing = percentiles(await turnsWhile(other, session, async () => imports < 5, 40));
  sending = false;
  await sender;
  console.log(
    `  ${importMb} MB one-line import x${imports} (answered ${lastStatus}): other context's turn p50 ${fmt(importing.p50)} ms | ${fmt(baseline.p50)} ms before | ${fmt(importing.p50 / baseline.p50, 2)}x`,
  );
}
