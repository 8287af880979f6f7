// pnpm bench, section `hostile`: one context uploads a 5 MB Markdown file with no paragraph break
// and no full stop while another context posts interactive turns. Reported against the same
// context's turns and /healthz before the upload (same run): /healthz's worst latency while the
// document is processed (goal ≤ 1 s), the other context's turn p50 (goal ≤ 3× its baseline), and
// how the document ended and when (a terminal state in bounded time).
import { performance } from "node:perf_hooks";
import { ADMIN } from "./perf-cluster";
import { benchTurns, cycle, fmt, newContext, newSession, percentiles, postTurn, type Api } from "./perf-client";
import { withCluster } from "./perf-sections";

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

/** About `bytes` of words with no full stop and no line break. */
function wordSalad(bytes: number): string {
  const words = ["alpha", "river", "stone", "cloud", "garden", "blue", "north", "paper"];
  const parts: string[] = [];
  for (let i = 0, size = 0; size < bytes; i++, size += 6) parts.push(words[i % words.length]!);
  return parts.join(" ");
}

async function health(baseUrl: string): Promise<number> {
  const started = performance.now();
  await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(30_000) });
  return performance.now() - started;
}

async function documentState(api: Api, id: string): Promise<string> {
  const res = await fetch(`${api.baseUrl}/api/v1/${api.contextId}/documents/${id}/status`, { headers: { "api-key": api.apiKey } });
  const body = (await res.json()) as { state: string; stages?: { status: string; error?: { class: string } }[] };
  const failed = body.stages?.find((s) => s.error);
  return failed ? `${body.state} (${failed.status}, class ${failed.error!.class})` : body.state;
}

export async function hostileDocumentSection(): Promise<void> {
  const mb = num("BENCH_HOSTILE_MB", 5);
  const capMs = num("BENCH_HOSTILE_CAP_MS", 180_000);
  await withCluster(0, [""], {}, async (cluster, api) => {
    const other = await newContext(cluster.baseUrl, ADMIN);
    const session = await newSession(other);
    const turns = cycle(benchTurns("any"), 2_000);
    let next = 0;
    for (; next < 20; next++) await postTurn(other, session, turns[next]!);
    const baseline = { turns: [] as number[], health: [] as number[] };
    for (let i = 0; i < 60; i++, next++) {
      baseline.health.push(await health(cluster.baseUrl));
      baseline.turns.push((await postTurn(other, session, turns[next]!)).ms);
    }
    const upload = await fetch(`${api.baseUrl}/api/v1/${api.contextId}/documents`, {
      method: "POST",
      headers: { "api-key": api.apiKey, "content-type": "text/markdown" },
      body: wordSalad(mb * 1024 * 1024),
    });
    const { document_id: id } = (await upload.json()) as { document_id: string };
    const started = performance.now();
    const during = { turns: [] as number[], health: [] as number[] };
    let state = "processing";
    while (/^(queued|processing)/.test(state) && performance.now() - started < capMs) {
      during.health.push(await health(cluster.baseUrl));
      during.turns.push((await postTurn(other, session, turns[next++ % turns.length]!)).ms);
      state = await documentState(api, id);
    }
    const seconds = (performance.now() - started) / 1000;
    const [b, d] = [percentiles(baseline.turns), percentiles(during.turns)];
    console.log(`\n## hostile: a ${mb} MB Markdown upload (no paragraph break, no full stop) beside another context's turns`);
    console.log(`  document (${upload.status}): ${state} after ${fmt(seconds)} s`);
    console.log(
      `  /healthz worst: ${fmt(Math.max(...during.health))} ms while processing | ${fmt(Math.max(...baseline.health))} ms before`,
    );
    console.log(
      `  other context's turn p50: ${fmt(d.p50)} ms while processing | ${fmt(b.p50)} ms before | ${fmt(d.p50 / b.p50, 2)}x (${during.turns.length} turns)`,
    );
    console.log(`  other context's turn p99: ${fmt(d.p99)} ms while processing | ${fmt(b.p99)} ms before | ${fmt(d.p99 / b.p99, 2)}x`);
  });
}
