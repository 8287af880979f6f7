// Evidence recall@k and MRR: a question is answered at k when one of its first k results
// names a turn the dataset cites (directly, or as the source turn of a fact); MRR takes the
// rank of the first such result within the 20 asked for.
import { CATEGORY_NAMES, type RecallQuestion } from "./recall-data";

export const CUTOFFS = [5, 10, 20] as const;

export interface Scores {
  questions: number;
  recall: Record<(typeof CUTOFFS)[number], number>;
  mrr: number;
}

/** `ranked[i]`: for question i, the dialogue ids each result names, best first. */
export function score(questions: RecallQuestion[], ranked: string[][][]): Map<string, Scores> {
  const groups = new Map<string, number[]>();
  questions.forEach((q, i) => {
    const evidence = new Set(q.evidence);
    const first = ranked[i]!.findIndex((ids) => ids.some((id) => evidence.has(id)));
    for (const key of [CATEGORY_NAMES[q.category]!, "overall"]) groups.set(key, [...(groups.get(key) ?? []), first]);
  });
  const order = [...Object.values(CATEGORY_NAMES), "overall"].filter((k) => groups.has(k));
  return new Map(order.map((k) => [k, summarise(groups.get(k)!)]));
}

function summarise(firstHits: number[]): Scores {
  const n = firstHits.length;
  const within = (k: number) => firstHits.filter((f) => f >= 0 && f < k).length / n;
  const mrr = firstHits.reduce((s, f) => s + (f >= 0 && f < 20 ? 1 / (f + 1) : 0), 0) / n;
  return { questions: n, recall: { 5: within(5), 10: within(10), 20: within(20) }, mrr };
}

/** One row per category: the retriever's figures, the baseline's, and recall@5 and @10 as ratios. */
export function table(label: string, mine: Map<string, Scores>, baseline: Map<string, Scores>): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const cell = (s: Scores) => `${pct(s.recall[5])} / ${pct(s.recall[10])} / ${pct(s.recall[20])} / ${s.mrr.toFixed(3)}`;
  const rows = [...mine].map(([k, s]) => {
    const b = baseline.get(k)!;
    const ratio = (k: 5 | 10) => `${(s.recall[k] / b.recall[k]).toFixed(2)}x`;
    return `| ${k} | ${s.questions} | ${cell(s)} | ${cell(b)} | ${ratio(5)} / ${ratio(10)} |`;
  });
  return [
    `| category | questions | ${label}: R@5 / R@10 / R@20 / MRR | BM25: R@5 / R@10 / R@20 / MRR | R@5 / R@10 ratio |`,
    "|---|---|---|---|---|",
    ...rows,
  ].join("\n");
}
