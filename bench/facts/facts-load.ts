// bench:facts' loading: each conversation into a context of its own, either by bulk import
// (POST …/turns/batch, one batch a session: the windows path) or by interactive turns (POST
// …/turns one at a time, each answered once committed), conversations side by side. Returns
// what recall-load.ts returns for bench:recall (context, key, scope, dialogue id per turn id).
import type pg from "pg";
import { createBenchContext, scopeOf } from "../shared/bench-load";
import { BENCH_ADMIN_KEY } from "../shared/bench-service";
import { attachmentsOf, type GateConversation, type GateTurn } from "../shared/gate-locomo";
import { drained, poster } from "../economy/economy-recall";
import type { LoadedConversation } from "../recall/recall-load";

export type Via = "batch" | "turns";

export interface LoadRun {
  loaded: LoadedConversation[];
  turns: number;
  seconds: number;
  /** Interactive only: each POST …/turns' time, ms. */
  turnMs: number[];
  /** Work items that ended dead (or stayed failed) once the work was done. */
  failed: number;
}

const DRAIN_MS = 1_200_000;

export async function loadAll(baseUrl: string, pool: pg.Pool, conversations: GateConversation[], via: Via): Promise<LoadRun> {
  const started = performance.now();
  const turnMs: number[] = [];
  const loaded = await Promise.all(conversations.map((c) => loadOne(baseUrl, c, via, turnMs)));
  for (const c of loaded) await drained(pool, c.contextId, DRAIN_MS);
  const seconds = (performance.now() - started) / 1000;
  const { rows } = await pool.query<{ n: string }>(
    "SELECT count(*) AS n FROM work_items WHERE context_id = ANY($1::uuid[]) AND status IN ('dead', 'failed')",
    [loaded.map((c) => c.contextId)],
  );
  const turns = conversations.reduce((n, c) => n + c.turns.length, 0);
  return { loaded, turns, seconds, turnMs, failed: Number(rows[0]?.n ?? 0) };
}

async function loadOne(baseUrl: string, conversation: GateConversation, via: Via, turnMs: number[]): Promise<LoadedConversation> {
  const ctx = await createBenchContext(baseUrl, BENCH_ADMIN_KEY);
  const post = poster(`${baseUrl}/api/v1/${ctx.contextId}`, ctx.apiKey);
  const scope = scopeOf(conversation);
  const body = (t: GateTurn) => {
    const attachments = attachmentsOf(t);
    const turn = { role: "user", content: t.text, scope, name: t.speaker, occurred_at: t.referenceTime.toISOString() };
    return attachments.length > 0 ? { ...turn, attachments } : turn;
  };
  const diaIds: Record<string, string> = {};
  for (const turns of bySession(conversation.turns)) {
    const session = (await post("/sessions", { metadata: { locomo: conversation.file } })).session_id as string;
    if (via === "batch") {
      const ids = (await post(`/sessions/${session}/turns/batch`, { turns: turns.map(body) })).turn_ids as string[];
      ids.forEach((id, i) => (diaIds[id] = turns[i]!.diaId));
      continue;
    }
    for (const turn of turns) {
      const at = performance.now();
      diaIds[(await post(`/sessions/${session}/turns`, body(turn))).turn_id as string] = turn.diaId;
      turnMs.push(performance.now() - at);
    }
  }
  return { file: conversation.file, contextId: ctx.contextId, apiKey: ctx.apiKey, scope, diaIds };
}

/** A conversation's sessions (D1, D2, …) in order, each its turns. */
function bySession(turns: GateTurn[]): GateTurn[][] {
  const sessions = new Map<string, GateTurn[]>();
  for (const t of turns) {
    const key = t.diaId.split(":")[0]!;
    sessions.set(key, [...(sessions.get(key) ?? []), t]);
  }
  return [...sessions.values()];
}
