// pnpm bench:recall — evidence recall of POST /query on the LoCoMo conversations against
// a BM25 over the same raw turns, computed in the same run (see README, Performance).
//   LOCOMO_DIR              data folder (default ../shared/data/locomo from the repo root)
//   RECALL_EMBEDDING_MODEL  also measure the hybrid (full text + vectors); with
//                           RECALL_EMBEDDING_DIMENSIONS, OPENAI_API_KEY, OPENAI_BASE_URL
//   BENCH_RECALL_RELOAD=1   post the conversations again instead of reusing stored contexts
//   BENCH_RECALL_LOO=0      skip the leave-one-conversation-out figures (recall-loo.ts)
//   BENCH_RECALL_ABLATE=1   also the held-out figure without each signal
//   BENCH_RECALL_SCALE=0    skip the scale section (/query p50 at 2,000 and 20,000 turns, recall-scale.ts)
//   BENCH_RECALL_CONTEXT=0  skip /context evidence coverage at 500, 1,000 and 2,000 tokens (and its p50)
// The service runs in-process on its own database (recall_bench_recall, kept between runs,
// migrated each run) with no chat model, so the heuristics extract what they can.
import fs from "node:fs";
import path from "node:path";
import { bm25Index } from "./recall-bm25";
import { readRecallData, type RecallQuestion } from "./recall-data";
import { defaultLocomoDir } from "../shared/gate-locomo";
import { loadOrReuse, type LoadedConversation } from "./recall-load";
import { ascend, leaveOneOut, SettingRanker, type HeldOut } from "./recall-loo";
import { RANKING_DEFAULTS, type RankingWeights } from "@recall/memory";
import { contextCoverage, coverageTable, p50, serviceRanking } from "./recall-http";
import { printScale } from "./recall-scale";
import { score, table, type Scores } from "./recall-score";
import { BENCH_ADMIN_KEY, startService } from "../shared/bench-service";

const DEPTH = 20;
const ENV_PASSED = ["RECALL_EMBEDDING_MODEL", "RECALL_EMBEDDING_DIMENSIONS", "OPENAI_API_KEY", "OPENAI_BASE_URL"] as const;

async function main(): Promise<void> {
  const dir = defaultLocomoDir();
  if (!fs.existsSync(dir)) {
    console.log(`bench:recall: no LoCoMo data at ${dir}; set LOCOMO_DIR to measure. Nothing to do.`);
    return;
  }
  const data = readRecallData(dir);
  const overrides = Object.fromEntries(ENV_PASSED.filter((k) => process.env[k]).map((k) => [k, process.env[k]!]));
  const service = await startService({ ...overrides, TURN_TIMEOUT_MS: "300000" }, { keepDatabase: "recall_bench_recall" });
  try {
    const stateFile = path.resolve(__dirname, "../../.data/bench-recall.json");
    if (process.env.BENCH_RECALL_RELOAD === "1") fs.rmSync(stateFile, { force: true });
    const target = { baseUrl: service.baseUrl, adminKey: BENCH_ADMIN_KEY, databaseUrl: service.config.DATABASE_URL, stateFile };
    const loaded = await loadOrReuse({ ...target, embeddingModel: overrides.RECALL_EMBEDDING_MODEL }, data.conversations);
    await service.stopWorkers();
    const baseline = score(data.questions, bm25Ranking(data, loaded));
    console.log(`\n${data.questions.length} questions (categories 1–4) over ${loaded.length} conversations\n`);
    const started = Date.now();
    const fullText = score(data.questions, (await serviceRanking(service.fullTextUrl, data.questions, loaded)).ranked);
    console.log(table("/query full text", fullText, baseline));
    console.log(`(${((Date.now() - started) / data.questions.length).toFixed(1)} ms per question)\n`);
    if (process.env.BENCH_RECALL_CONTEXT !== "0") await printContextCoverage(service.fullTextUrl, data.questions, loaded);
    await printLeaveOneOut(service.config.DATABASE_URL, data.questions, loaded, baseline);
    if (process.env.BENCH_RECALL_SCALE !== "0") await printScale({ ...target, databaseUrl: service.config.DATABASE_URL }, data);
    if (overrides.RECALL_EMBEDDING_MODEL) {
      const hybrid = score(data.questions, (await serviceRanking(service.baseUrl, data.questions, loaded)).ranked);
      console.log(table(`/query hybrid (${overrides.RECALL_EMBEDDING_MODEL})`, hybrid, baseline));
    }
  } finally {
    await service.close();
  }
}

/**
 * The same figures with the ranking's weights chosen leave-one-conversation-out (recall-loo.ts),
 * the setting the same ascent chooses on all five (what RANKING_DEFAULTS should hold), and with
 * BENCH_RECALL_ABLATE=1 the held-out figure without each signal: what each one adds on
 * conversations it was not fitted on.
 */
async function printLeaveOneOut(
  databaseUrl: string,
  questions: RecallQuestion[],
  loaded: LoadedConversation[],
  baseline: Map<string, Scores>,
): Promise<void> {
  if (loaded.length < 2 || process.env.BENCH_RECALL_LOO === "0") return;
  const ranker = new SettingRanker(databaseUrl, questions, loaded);
  try {
    const heldOut = await leaveOneOut(ranker, questions);
    console.log(table("/query held out (weights chosen on the other four)", score(questions, heldOut.ranked), baseline));
    for (const [file, setting] of Object.entries(heldOut.chosen)) console.log(`  ${file}: ${JSON.stringify(setting)}`);
    const allFive = await ascend(
      ranker,
      questions,
      questions.map((_, i) => i),
    );
    const differs = Object.entries(allFive).filter(([k, v]) => RANKING_DEFAULTS[k as keyof RankingWeights] !== v);
    console.log(
      `chosen on all five: ${JSON.stringify(allFive)}${differs.length ? ` (RANKING_DEFAULTS differ: ${JSON.stringify(differs)})` : " (= RANKING_DEFAULTS)"}\n`,
    );
    if (process.env.BENCH_RECALL_ABLATE === "1") await printAblation(ranker, questions, heldOut);
    console.log(`(${ranker.settingsRanked} settings ranked)\n`);
  } finally {
    await ranker.close();
  }
}

const SIGNALS: [string, (keyof RankingWeights)[]][] = [
  ["neighbours at distance 2", ["neighbour2"]],
  ["two stages (session score)", ["session"]],
  ["named speaker's turns", ["namedSpeaker"]],
  ["calendar (month, year named)", ["calendar"]],
  ["time-stating turns, named period", ["statesTime", "inPeriod"]],
  ["fact keys (a turn scored by the facts read from it)", ["factKey"]],
];

async function printAblation(ranker: SettingRanker, questions: RecallQuestion[], all: HeldOut): Promise<void> {
  const pct = (r: string[][][]) => {
    const s = score(questions, r).get("overall")!;
    return `${(100 * s.recall[5]).toFixed(1)}% / ${(100 * s.recall[10]).toFixed(1)}%`;
  };
  console.log(`| held out without | R@5 / R@10 (all signals: ${pct(all.ranked)}) |\n|---|---|`);
  for (const [name, keys] of SIGNALS) console.log(`| ${name} | ${pct((await leaveOneOut(ranker, questions, keys)).ranked)} |`);
  console.log("");
}

/** POST /context at 500, 1,000 and 2,000 tokens (recall-http.ts): evidence coverage per category, and the p50 of the call. */
async function printContextCoverage(baseUrl: string, questions: RecallQuestion[], loaded: LoadedConversation[]): Promise<void> {
  const coverage = await contextCoverage(baseUrl, questions, loaded);
  console.log(coverageTable(coverage));
  console.log(`(/context p50 at 1,000 tokens: ${p50(coverage.ms).toFixed(1)} ms)\n`);
}

/** The baseline's ranking, in dialogue ids, over each conversation's raw turns. */
function bm25Ranking(data: ReturnType<typeof readRecallData>, loaded: LoadedConversation[]): string[][][] {
  const indexes = new Map(data.conversations.map((c) => [c.file, bm25Index(c.turns.map((t) => ({ id: t.diaId, text: t.text })))] as const));
  if (loaded.length !== indexes.size) throw new Error("every conversation should be loaded");
  return data.questions.map((q) =>
    indexes
      .get(q.file)!
      .search(q.question, DEPTH)
      .map((id) => [id]),
  );
}

main().catch((err: Error) => {
  console.error(err);
  process.exit(1);
});
