// bench:facts' retrieval figures over contexts whose facts the stand-in read: /query hit@5 and
// hit@10 per category against a BM25 over the same turns (their photo captions included), with
// the ranking's weights chosen leave-one-conversation-out (recall-loo.ts) in each conversation's
// context, /context evidence coverage at 500, 1,000 and 2,000 tokens, and both calls' p50
// through the HTTP API. Recall gets the same captions, as image attachments on the turns, so
// both sides read the same text.
import { RANKING_DEFAULTS } from "@recall/memory";
import { bm25Index } from "../recall/recall-bm25";
import type { RecallData, RecallQuestion } from "../recall/recall-data";
import { contextCoverage, coverageTable, p50, serviceRanking } from "../recall/recall-http";
import type { LoadedConversation } from "../recall/recall-load";
import { leaveOneOut, SettingRanker, type AscentSpace } from "../recall/recall-loo";
import { score, table, type Scores } from "../recall/recall-score";

const DEPTH = 20;

/**
 * The weights the facts bear on, from the shipped defaults: each fold's ascent may change only
 * these (the turn-only weights were chosen by bench:recall and cost minutes a setting to revisit).
 */
export const FACT_SPACE: AscentSpace = {
  start: RANKING_DEFAULTS,
  grid: [
    ["factKey", [0, 0.5, 1, 2]],
    ["factLift", [0, 0.5, 1, 2]],
    ["factList", [0.25, 0.5, 1]],
  ],
};

export interface RetrievalFigures {
  hit5: number;
  hit10: number;
  bm25_hit5: number;
  bm25_hit10: number;
  hit5_all_five: number;
  hit10_all_five: number;
  context_evidence_500: number;
  context_evidence_1000: number;
  context_evidence_2000: number;
  context_p50_ms: number;
  query_p50_ms: number;
  loo_chosen: Record<string, unknown>;
}

export async function measureRetrieval(
  target: { baseUrl: string; databaseUrl: string },
  data: RecallData,
  loaded: LoadedConversation[],
  loo: boolean,
): Promise<RetrievalFigures> {
  const questions = data.questions.filter((q) => loaded.some((c) => c.file === q.file));
  const baseline = score(questions, bm25Ranking(data, questions));
  console.log(`\n${questions.length} questions (categories 1–4) over ${loaded.length} conversations`);
  console.log(
    "(BM25's documents are each turn's text and its photo caption; Recall's turns carry the same caption as an image attachment)\n",
  );
  const viaHttp = await serviceRanking(target.baseUrl, questions, loaded);
  const allFive = score(questions, viaHttp.ranked);
  console.log(table("/query (RANKING_DEFAULTS)", allFive, baseline));
  const heldOut = loo ? await heldOutScores(target.databaseUrl, questions, loaded, baseline) : { scores: allFive, chosen: {} };
  const coverage = await contextCoverage(target.baseUrl, questions, loaded);
  console.log(`\n${coverageTable(coverage)}`);
  const overall = (s: Map<string, Scores>, k: 5 | 10) => round(s.get("overall")!.recall[k]);
  const cov = (i: number) => round(coverage.rows.get("overall")![i]!);
  return {
    hit5: overall(heldOut.scores, 5),
    hit10: overall(heldOut.scores, 10),
    bm25_hit5: overall(baseline, 5),
    bm25_hit10: overall(baseline, 10),
    hit5_all_five: overall(allFive, 5),
    hit10_all_five: overall(allFive, 10),
    context_evidence_500: cov(0),
    context_evidence_1000: cov(1),
    context_evidence_2000: cov(2),
    context_p50_ms: round(p50(coverage.ms)),
    query_p50_ms: round(p50(viaHttp.ms)),
    loo_chosen: heldOut.chosen,
  };
}

async function heldOutScores(
  databaseUrl: string,
  questions: RecallQuestion[],
  loaded: LoadedConversation[],
  baseline: Map<string, Scores>,
): Promise<{ scores: Map<string, Scores>; chosen: Record<string, unknown> }> {
  if (loaded.length < 2) return { scores: new Map(), chosen: {} };
  const ranker = new SettingRanker(databaseUrl, questions, loaded);
  try {
    const heldOut = await leaveOneOut(ranker, questions, [], FACT_SPACE);
    const scores = score(questions, heldOut.ranked);
    console.log(`\n${table("/query held out (fact weights chosen on the other conversations)", scores, baseline)}`);
    const chosen = Object.fromEntries(
      Object.entries(heldOut.chosen).map(([file, s]) => [file, Object.fromEntries(FACT_SPACE.grid.map(([k]) => [k, s[k]]))] as const),
    );
    console.log(`  chosen: ${JSON.stringify(chosen)} (${ranker.settingsRanked} settings ranked)`);
    return { scores, chosen };
  } finally {
    await ranker.close();
  }
}

/** The baseline's ranking, in dialogue ids, over each conversation's raw turns and their captions. */
function bm25Ranking(data: RecallData, questions: RecallQuestion[]): string[][][] {
  const indexes = new Map(
    data.conversations.map(
      (c) => [c.file, bm25Index(c.turns.map((t) => ({ id: t.diaId, text: t.image ? `${t.text} ${t.image.caption}` : t.text })))] as const,
    ),
  );
  return questions.map((q) =>
    indexes
      .get(q.file)!
      .search(q.question, DEPTH)
      .map((id) => [id]),
  );
}

const round = (x: number) => Math.round(x * 1000) / 1000;
