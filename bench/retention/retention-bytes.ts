// pnpm tsx bench/retention/retention-bytes.ts: the bytes per turn the pipeline's own tables keep before and after
// retention compacts them (docs/scaling.md#retention). RETENTION_TURNS (300) interactive turns (LoCoMo text when present)
// through a whole Recall on a private database, every fifth turn's model answer from the local wire-protocol server (a
// model call each, priced), the rest read by the rules with no model; then the records are moved 45 days back and
// compacted as the workers' retention does with RECALL_PIPELINE_RETENTION_DAYS=30. Sizes are pg_total_relation_size
// (table, indexes, TOAST) after VACUUM FULL on both sides, so they count live rows only: what a table keeps once
// autovacuum has made the space of dead versions reusable, not the bloat of its updates; less the same tables' size
// before the first turn (an empty index still takes a page), so a figure is what the turns added.
import { performance } from "node:perf_hooks";
import pg from "pg";
import { createDb } from "@recall/db";
import { compactPipelineRecords } from "@recall/pipeline";
import { createLogger } from "@recall/telemetry";
import { startFakeLlmServer } from "@recall/test-support";
import { benchTurns, cycle, newContext, newSession, postTurn } from "../perf/perf-client";
import { BENCH_ADMIN_KEY, startService } from "../shared/bench-service";

const TURNS = Number(process.env.RETENTION_TURNS ?? 300);
const MODEL = "openai-compatible:retention-bench";
const TABLES = ["work_items", "work_attempts", "extraction_plans", "outbox_events", "model_calls", "model_call_days"];
const EMPTY = { entities: [], attributes: [], relations: [], instructions: [], revocations: [], uncertainties: [] };

async function sizes(client: pg.Client): Promise<Record<string, { rows: number; bytes: number }>> {
  await client.query(`VACUUM FULL ${TABLES.join(", ")}`);
  const out: Record<string, { rows: number; bytes: number }> = {};
  for (const table of TABLES) {
    const { rows } = await client.query(`SELECT count(*)::int AS n, pg_total_relation_size($1)::bigint AS bytes FROM ${table}`, [table]);
    out[table] = { rows: rows[0].n, bytes: Number(rows[0].bytes) };
  }
  return out;
}

async function main(): Promise<void> {
  const llm = await startFakeLlmServer();
  llm.respondWith(() => ({ json: EMPTY, usage: { inputTokens: 900, outputTokens: 80 } }));
  const service = await startService({
    RECALL_FAST_MODEL: MODEL,
    OPENAI_BASE_URL: llm.openaiBaseUrl,
    RECALL_MODEL_PRICES_JSON: JSON.stringify({ [MODEL]: "2/8" }),
    RECALL_PIPELINE_RETENTION_DAYS: "0",
  });
  const client = new pg.Client({ connectionString: service.config.DATABASE_URL });
  await client.connect();
  try {
    const empty = await sizes(client);
    const api = await newContext(service.baseUrl, BENCH_ADMIN_KEY);
    const model = benchTurns("model");
    const any = benchTurns("any");
    const session = await newSession(api);
    const outcomes: Record<string, number> = {};
    for (let i = 0; i < TURNS; i++) {
      const turn = i % 5 === 0 ? model[i % model.length]! : cycle(any, TURNS)[i]!;
      const { status } = await postTurn(api, session, turn);
      outcomes[status] = (outcomes[status] ?? 0) + 1;
    }
    await service.stopWorkers();
    const before = await sizes(client);
    for (const [table, set] of [
      ["work_items", "created_at = created_at - i, started_at = started_at - i, finished_at = finished_at - i"],
      ["work_attempts", "started_at = started_at - i, finished_at = finished_at - i"],
      ["model_calls", "created_at = created_at - i"],
      ["outbox_events", "created_at = created_at - i, processed_at = processed_at - i"],
    ] as const) {
      await client.query(`UPDATE ${table} SET ${set.replaceAll(" i", " interval '45 days'")}`);
    }
    const db = createDb({ databaseUrl: service.config.DATABASE_URL, poolMax: 2, unscoped: "bypass" });
    const started = performance.now();
    const report = await compactPipelineRecords({ db, logger: createLogger("silent", "bench"), days: 30 });
    const ms = performance.now() - started;
    await db.$disconnect();
    const after = await sizes(client);
    console.log(`${TURNS} turns: ${JSON.stringify(outcomes)}; compacted in ${Math.round(ms)} ms: ${JSON.stringify(report)}`);
    console.log("| table | rows before | bytes/turn before | rows after | bytes/turn after |");
    console.log("|---|---|---|---|---|");
    let [sumBefore, sumAfter] = [0, 0];
    for (const table of TABLES) {
      const base = empty[table]!.bytes;
      const [b, a] = [before[table]!, after[table]!];
      sumBefore += b.bytes - base;
      sumAfter += a.bytes - base;
      const perTurn = (bytes: number) => Math.round((bytes - base) / TURNS);
      console.log(`| ${table} | ${b.rows} | ${perTurn(b.bytes)} | ${a.rows} | ${perTurn(a.bytes)} |`);
    }
    console.log(`| all six | | ${Math.round(sumBefore / TURNS)} | | ${Math.round(sumAfter / TURNS)} |`);
  } finally {
    await client.end();
    await service.close();
    await llm.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
