// bench:recall's scale section: /query and /context p50 in one context holding 2,000 turns, then 20,000
// (the LoCoMo turns repeated, each copy under other speaker names). The turns are written
// straight into the bench's database (a read benchmark: extraction adds nothing /query's
// turn ranking reads), VACUUM ANALYZE runs as autovacuum would in service, and the same
// questions are asked over HTTP at both sizes. The context is deleted afterwards.
import pg from "pg";
import { measure } from "../perf/bench-measure";
import { createBenchContext } from "../shared/bench-load";
import type { RecallData } from "./recall-data";

const SIZES = [2_000, 20_000] as const;
const SAMPLES = 200;
/** Both read routes an agent calls each turn: /context at 1,000 tokens, as in the coverage section. */
const ROUTES = ["query", "context"] as const;
type Route = (typeof ROUTES)[number];
const SCOPE = ["org=locomo-scale"];
/** Speaker names for the copies after the first (first speaker, second speaker). */
const NAMES = [
  "Avery",
  "Blake",
  "Casey",
  "Devon",
  "Emery",
  "Finley",
  "Harper",
  "Jordan",
  "Kendall",
  "Logan",
  "Morgan",
  "Parker",
  "Quinn",
  "Reese",
];

interface ScaleTarget {
  baseUrl: string;
  adminKey: string;
  databaseUrl: string;
}

export async function printScale(target: ScaleTarget, data: RecallData): Promise<void> {
  const { contextId, apiKey } = await createBenchContext(target.baseUrl, target.adminKey);
  const client = new pg.Client({ connectionString: target.databaseUrl });
  await client.connect();
  try {
    const p50s: Record<Route, number[]> = { query: [], context: [] };
    let stored = 0;
    for (const size of SIZES) {
      stored += await insertTurns(client, contextId, data, stored, size);
      await client.query("VACUUM ANALYZE turns");
      for (const route of ROUTES) {
        const ask = async (i: number) => {
          const q = data.questions[i % data.questions.length]!;
          const body =
            route === "query" ? { query: q.question, scope: SCOPE, limit: 10 } : { message: q.question, scope: SCOPE, max_tokens: 1_000 };
          const res = await fetch(`${target.baseUrl}/api/v1/${contextId}/${route}`, {
            method: "POST",
            headers: { "api-key": apiKey, "content-type": "application/json" },
            body: JSON.stringify(body),
          });
          if (!res.ok) throw new Error(`/${route} answered ${res.status}: ${await res.text()}`);
          await res.arrayBuffer();
        };
        p50s[route].push((await measure({ name: `${route}@${size}`, run: ask }, SAMPLES)).p50);
      }
    }
    console.log(`| turns in the context | ${SIZES.map((n) => n.toLocaleString("en")).join(" | ")} |\n|---|---|---|`);
    for (const route of ROUTES) {
      const [small, large] = p50s[route];
      console.log(`| /${route} p50 | ${p50s[route].map((p) => `${p.toFixed(1)} ms`).join(" | ")} |`);
      console.log(`/${route} p50 at ${SIZES[1]} turns / at ${SIZES[0]}: ${(large! / small!).toFixed(2)}x`);
    }
    console.log("");
  } finally {
    await client.query("DELETE FROM search_term_stats WHERE context_id = $1", [contextId]);
    await client.query("DELETE FROM search_doc_stats WHERE context_id = $1", [contextId]);
    await client.query("DELETE FROM contexts WHERE id = $1", [contextId]);
    await client.end();
  }
}

/** Turns `from` … `to` − 1 of the repeated conversations, one session per LoCoMo session of each copy. */
async function insertTurns(client: pg.Client, contextId: string, data: RecallData, from: number, to: number): Promise<number> {
  const all = data.conversations.flatMap((c) => c.turns.map((t) => ({ c, t })));
  let written = 0;
  for (let i = from; i < to;) {
    const copy = Math.floor(i / all.length);
    const { c } = all[i % all.length]!;
    const first = all.findIndex((x) => x.c === c) + copy * all.length;
    const session = all[i % all.length]!.t.diaId.split(":")[0];
    const rows = [];
    for (let j = i; j < to && all[j % all.length]!.c === c && all[j % all.length]!.t.diaId.split(":")[0] === session; j++)
      rows.push({ ...all[j % all.length]!.t, seq: j - first });
    const rename = (text: string) =>
      copy === 0 ? text : c.speakers.reduce((s, name, k) => s.replaceAll(name, NAMES[(2 * (copy - 1) + k) % NAMES.length]!), text);
    const { rows: made } = await client.query("INSERT INTO sessions (id, context_id) VALUES (gen_random_uuid(), $1) RETURNING id", [
      contextId,
    ]);
    await client.query(
      `INSERT INTO turns (id, context_id, session_id, seq, role, speaker, content, scope_set_id, occurred_at, trace_id)
       SELECT gen_random_uuid(), $1, $2, seq, 'user', speaker, content, recall_scope_set($1, $3), at, 'scale'
       FROM unnest($4::int[], $5::text[], $6::text[], $7::timestamptz[]) AS t(seq, speaker, content, at)`,
      [
        contextId,
        made[0].id,
        SCOPE,
        rows.map((r) => r.seq),
        rows.map((r) => rename(r.speaker)),
        rows.map((r) => rename(r.text)),
        rows.map((r) => r.referenceTime),
      ],
    );
    written += rows.length;
    i += rows.length;
  }
  return written;
}
