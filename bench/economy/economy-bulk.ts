// The Recall bulk peer for pnpm bench:economy: the conversation imported as history through
// POST …/turns/batch (≤ 500 turns per request) on the whole service. The heuristics finish what
// they can turn by turn; the rest are read in windows of consecutive turns, one model call each.
// Afterwards every committed fact is checked to carry its evidence span in its own turn.
import { performance } from "node:perf_hooks";
import pg from "pg";
import { loadConfig } from "@recall/config";
import { createBenchContext, scopeOf } from "../shared/bench-load";
import { BENCH_ADMIN_KEY, startService } from "../shared/bench-service";
import { EMBEDDING_DIMENSIONS } from "./economy-mem0";
import type { RecallRun } from "./economy-recall";
import type { GateConversation, GateTurn } from "../shared/gate-locomo";

const BATCH = 500;

export async function runRecallBulk(conversation: GateConversation, turns: GateTurn[], baseUrl: string): Promise<RecallRun> {
  const service = await startService({
    RECALL_FAST_MODEL: "openai-compatible:economy-fast",
    RECALL_STRONG_MODEL: "openai-compatible:economy-strong",
    OPENAI_BASE_URL: baseUrl,
    RECALL_EMBEDDING_MODEL: "openai-compatible:economy-embedding",
    RECALL_EMBEDDING_DIMENSIONS: String(EMBEDDING_DIMENSIONS),
    RECALL_HEURISTIC_CONFIDENCE: String(loadConfig().RECALL_HEURISTIC_CONFIDENCE),
  });
  const pool = new pg.Pool({ connectionString: service.config.DATABASE_URL, max: 1 });
  try {
    const ctx = await createBenchContext(service.baseUrl, BENCH_ADMIN_KEY);
    const api = client(`${service.baseUrl}/api/v1/${ctx.contextId}`, ctx.apiKey);
    const session = (await api("POST", "/sessions", {})).session_id as string;
    const scope = scopeOf(conversation);
    const started = performance.now();
    for (let i = 0; i < turns.length; i += BATCH) {
      const body = turns
        .slice(i, i + BATCH)
        .map((t) => ({ role: "user", content: t.text, scope, name: t.speaker, occurred_at: t.referenceTime.toISOString() }));
      const accepted = await api("POST", `/sessions/${session}/turns/batch`, { turns: body });
      await batchDone(api, (accepted.status_url as string).replace(/^\/api\/v1\/[^/]+/, ""));
    }
    const wallMs = performance.now() - started;
    const spans = await evidenceCheck(pool, ctx.contextId);
    console.log(`  bulk: ${spans.facts} committed facts, ${spans.outside} without their evidence span in their own turn`);
    return { turns: turns.length, wallMs, stages: await stagesOf(pool, ctx.contextId) };
  } finally {
    await pool.end();
    await service.close();
  }
}

type Api = (method: string, path: string, body?: object) => Promise<Record<string, unknown>>;

function client(base: string, apiKey: string): Api {
  return async (method, path, body) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { "api-key": apiKey, "content-type": "application/json" },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as Record<string, unknown>;
  };
}

async function batchDone(api: Api, statusPath: string): Promise<void> {
  const deadline = Date.now() + 600_000;
  while (Date.now() < deadline) {
    if ((await api("GET", statusPath)).state === "done") return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error("batch not done after 10 minutes");
}

/** Turns by the stage that finished them: heuristic, fast (alone, or in a window), strong, or failed. */
async function stagesOf(pool: pg.Pool, contextId: string): Promise<Record<string, number>> {
  const { rows } = await pool.query(
    `SELECT CASE WHEN status = 'dead' THEN 'failed' ELSE coalesce(payload->'outcomes'->0->>'stage', status::text) END
              || CASE WHEN payload ? 'window_id' AND status <> 'dead' THEN ' (window)' ELSE '' END AS stage, count(*)::int AS n
       FROM work_items WHERE context_id = $1 AND queue = 'extract_assertions' AND subject_type = 'turn' GROUP BY 1`,
    [contextId],
  );
  return Object.fromEntries(rows.map((r) => [r.stage, r.n]));
}

/** Every committed fact's assertion: its byte span cut from its own turn reads back its quote. */
async function evidenceCheck(pool: pg.Pool, contextId: string): Promise<{ facts: number; outside: number }> {
  const { rows } = await pool.query(
    `SELECT count(*)::int AS facts,
            count(*) FILTER (WHERE a.turn_id IS NULL
              OR convert_from(substring(convert_to(t.content, 'UTF8') FROM a.start_byte + 1 FOR a.end_byte - a.start_byte), 'UTF8') <> a.quote)::int AS outside
       FROM assertions a LEFT JOIN turns t ON t.id = a.turn_id
      WHERE a.context_id = $1 AND a.retracted_at IS NULL`,
    [contextId],
  );
  return rows[0] as { facts: number; outside: number };
}
