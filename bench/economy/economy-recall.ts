// The Recall peer for pnpm bench:economy, two ways:
//   direct   the extract_assertions worker's own calls, in-process: per turn a fresh staged
//            extractor (heuristics, then the fast model through the real `openai` client) with
//            the plan the worker resolves for a conversation turn; what each turn commits is
//            known to the next one. No database, nothing embedded.
//   service  the whole service (bench-service.ts): POST /turns over HTTP, the real queues and
//            workers, Postgres, and embeddings after each commit (RECALL_EMBEDDING_MODEL set).
// Both point the fast and strong tiers at the counting server.
import { performance } from "node:perf_hooks";
import pg from "pg";
import { extractorOptions, loadConfig, type Config } from "@recall/config";
import type { ActiveInstruction, KnownAttribute, KnownEntity } from "@recall/contracts";
import { createStagedExtractorFactory, loadSkills, resolveExtractionPlan, type ExtractionGuidance } from "@recall/extraction";
import { DEFAULT_SKILLS_DIR } from "../../apps/worker/src/bootstrap";
import { budgetLimits } from "../../apps/worker/src/services/plan";
import { createBenchContext, scopeOf } from "../shared/bench-load";
import { BENCH_ADMIN_KEY, startService } from "../shared/bench-service";
import { EMBEDDING_DIMENSIONS, type PeerRun } from "./economy-mem0";
import type { GateConversation, GateTurn } from "../shared/gate-locomo";
import { learn, nextInstructions, turnInput } from "../gate/gate-run";

export interface RecallRun extends PeerRun {
  /** Turns by the stage that finished them (heuristic, fast, strong) or `failed`. */
  stages: Record<string, number>;
}

const MODELS = {
  RECALL_FAST_MODEL: "openai-compatible:economy-fast",
  RECALL_STRONG_MODEL: "openai-compatible:economy-strong",
};

export async function runRecallDirect(conversation: GateConversation, turns: GateTurn[], baseUrl: string): Promise<RecallRun> {
  const config: Config = {
    ...loadConfig(),
    ...MODELS,
    OPENAI_BASE_URL: baseUrl,
    OPENAI_API_KEY: undefined,
    RECALL_EMBEDDING_MODEL: undefined,
  };
  const guidance = await turnGuidance(config);
  const extractorFor = createStagedExtractorFactory(extractorOptions(config));
  const limits = budgetLimits(config, {});
  // Both speakers are known people, as in bench:gate; what each turn commits is known to the next.
  const entities: KnownEntity[] = conversation.speakers.map((name, i) => ({ id: `speaker-${i}`, name, type: "person", aliases: [] }));
  const known = { entities, attributes: [] as KnownAttribute[], instructions: [] as ActiveInstruction[] };
  const stages: Record<string, number> = {};
  const started = performance.now();
  for (const turn of turns) {
    // Stored memory is read newest first (known-memory.ts); the prompt lists the first 100.
    const input = { ...turnInput(turn, known), knownEntities: [...known.entities].reverse() };
    const outcome = await extractorFor(limits).extract(input, guidance);
    stages[outcome.stage] = (stages[outcome.stage] ?? 0) + 1;
    learn(outcome.diff, known.entities, known.attributes);
    known.instructions = nextInstructions(known.instructions, outcome.diff);
  }
  return { turns: turns.length, wallMs: performance.now() - started, stages };
}

/** What resolvePlan (apps/worker/src/services/plan.ts) resolves for a turn of a context with no skill settings. */
async function turnGuidance(config: Config): Promise<ExtractionGuidance> {
  const skills = await loadSkills(config.PIPELINE_SKILLS_DIR ?? DEFAULT_SKILLS_DIR);
  const plan = resolveExtractionPlan({
    contextConfig: {},
    documentMetadata: {},
    sourceMetadata: {},
    sourceType: "conversation",
    env: {
      skillBySourceType: config.PIPELINE_SKILL_BY_SOURCE_TYPE_JSON,
      defaultSkill: config.PIPELINE_DEFAULT_EXTRACTION_SKILL,
      defaultPurpose: config.PIPELINE_DEFAULT_EXTRACTION_PURPOSE,
    },
    skills,
    subject: "turn",
  });
  return { skillId: plan.skill.id, skillBody: plan.skill.body, purpose: plan.purpose };
}

export async function runRecallService(conversation: GateConversation, turns: GateTurn[], baseUrl: string): Promise<RecallRun> {
  const service = await startService({
    ...MODELS,
    OPENAI_BASE_URL: baseUrl,
    RECALL_EMBEDDING_MODEL: "openai-compatible:economy-embedding",
    RECALL_EMBEDDING_DIMENSIONS: String(EMBEDDING_DIMENSIONS),
    RECALL_HEURISTIC_CONFIDENCE: String(loadConfig().RECALL_HEURISTIC_CONFIDENCE),
  });
  const pool = new pg.Pool({ connectionString: service.config.DATABASE_URL, max: 1 });
  try {
    const ctx = await createBenchContext(service.baseUrl, BENCH_ADMIN_KEY);
    const post = poster(`${service.baseUrl}/api/v1/${ctx.contextId}`, ctx.apiKey);
    const session = (await post("/sessions", {})).session_id as string;
    const scope = scopeOf(conversation);
    const stages: Record<string, number> = {};
    const started = performance.now();
    for (const turn of turns) {
      const body = { role: "user", content: turn.text, scope, name: turn.speaker, occurred_at: turn.referenceTime.toISOString() };
      const extraction = (await post(`/sessions/${session}/turns`, body)).extraction as { status?: string; stage?: string } | undefined;
      const stage = extraction?.status === "committed" ? (extraction.stage ?? "unknown") : (extraction?.status ?? "error");
      stages[stage] = (stages[stage] ?? 0) + 1;
    }
    // A turn is answered once committed; its embeddings may still be on their way.
    await drained(pool, ctx.contextId);
    return { turns: turns.length, wallMs: performance.now() - started, stages };
  } finally {
    await pool.end();
    await service.close();
  }
}

export function poster(base: string, apiKey: string) {
  return async (path: string, body: object): Promise<Record<string, unknown>> => {
    const res = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { "api-key": apiKey, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!res.ok && res.status !== 202) throw new Error(`POST ${path} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as Record<string, unknown>;
  };
}

const DRAIN_TIMEOUT_MS = 120_000;

/** Until no work item of the context is queued, running or waiting for a retry, and the outbox has nothing left to relay. */
export async function drained(pool: pg.Pool, contextId: string, timeoutMs = DRAIN_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const sql = `SELECT (SELECT count(*) FROM work_items WHERE context_id = $1 AND status IN ('queued', 'running', 'failed'))
                    + (SELECT count(*) FROM outbox_events WHERE context_id = $1 AND processed_at IS NULL) AS n`;
  while (Date.now() < deadline) {
    if (Number((await pool.query(sql, [contextId])).rows[0].n) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`work of context ${contextId} still pending after ${timeoutMs} ms`);
}
