// What bench:recall and bench:facts ask of the HTTP API: each question's /query ranking (as
// dialogue ids), and /context evidence coverage at token budgets, each with the call's times.
import { CATEGORY_NAMES, type RecallQuestion } from "./recall-data";
import type { LoadedConversation } from "./recall-load";

const DEPTH = 20;
export const CONTEXT_BUDGETS = [500, 1_000, 2_000];

export interface TimedRanking {
  /** For question i, the dialogue ids each result names (a turn, or a fact's source turn), best first. */
  ranked: string[][][];
  ms: number[];
}

async function postJson(url: string, apiKey: string, body: object): Promise<unknown> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "api-key": apiKey, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
  return res.json();
}

/** /query's ranking of every question, in its conversation's context. */
export async function serviceRanking(baseUrl: string, questions: RecallQuestion[], loaded: LoadedConversation[]): Promise<TimedRanking> {
  const byFile = new Map(loaded.map((c) => [c.file, c]));
  const ranked: string[][][] = [];
  const ms: number[] = [];
  for (const q of questions) {
    const c = byFile.get(q.file)!;
    const started = performance.now();
    const body = (await postJson(`${baseUrl}/api/v1/${c.contextId}/query`, c.apiKey, {
      query: q.question,
      scope: c.scope,
      limit: DEPTH,
    })) as {
      results: { link: { turn_id?: string } }[];
    };
    ms.push(performance.now() - started);
    ranked.push(body.results.map((r) => [c.diaIds[r.link.turn_id ?? ""]].filter((id): id is string => id !== undefined)));
  }
  return { ranked, ms };
}

export interface ContextCoverage {
  /** Per category and "overall": the share of questions with an evidence turn among the pack's sources, per budget. */
  rows: Map<string, number[]>;
  /** The calls' times at 1,000 tokens. */
  ms: number[];
}

/**
 * POST /context at each budget: whether an evidence turn is among what was packed (an excerpt of
 * it, or a fact read from it), per category.
 */
export async function contextCoverage(
  baseUrl: string,
  questions: RecallQuestion[],
  loaded: LoadedConversation[],
): Promise<ContextCoverage> {
  const byFile = new Map(loaded.map((c) => [c.file, c]));
  const hits = new Map<string, number[]>();
  const ms: number[] = [];
  for (const [b, budget] of CONTEXT_BUDGETS.entries()) {
    for (const q of questions) {
      const c = byFile.get(q.file)!;
      const started = performance.now();
      const { sections } = (await postJson(`${baseUrl}/api/v1/${c.contextId}/context`, c.apiKey, {
        message: q.question,
        scope: c.scope,
        max_tokens: budget,
      })) as { sections: { excerpts: { kind: string; id: string }[]; facts: { source: { turn_id: string | null } }[] } };
      if (budget === 1_000) ms.push(performance.now() - started);
      const turnIds = [
        ...sections.excerpts.filter((e) => e.kind === "turn").map((e) => e.id),
        ...sections.facts.map((f) => f.source.turn_id),
      ];
      const found = turnIds.some((id) => id && q.evidence.includes(c.diaIds[id] ?? ""));
      for (const key of ["overall", categoryOf(q)]) {
        const row = hits.get(key) ?? CONTEXT_BUDGETS.map(() => 0);
        row[b]! += found ? 1 : 0;
        hits.set(key, row);
      }
    }
  }
  const counts = new Map<string, number>([["overall", questions.length]]);
  for (const q of questions) counts.set(categoryOf(q), (counts.get(categoryOf(q)) ?? 0) + 1);
  const rows = new Map([...hits].map(([key, row]) => [key, row.map((n) => n / counts.get(key)!)] as const));
  return { rows, ms };
}

export function coverageTable(coverage: ContextCoverage): string {
  return [
    "| /context evidence among sources | " + CONTEXT_BUDGETS.map((b) => `${b} tokens`).join(" | ") + " |",
    "|---|" + CONTEXT_BUDGETS.map(() => "---|").join(""),
    ...[...coverage.rows].map(([key, row]) => `| ${key} | ${row.map((x) => x.toFixed(3)).join(" | ")} |`),
  ].join("\n");
}

export function p50(ms: number[]): number {
  const sorted = [...ms].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

const categoryOf = (q: RecallQuestion) => CATEGORY_NAMES[q.category] ?? `category ${q.category}`;
