// pnpm bench:facts --data <dir> — what Recall commits when its extraction model answers with the
// dataset's own annotations (the stand-in, standin-server.ts): an upper bound for extraction. It
// starts the stand-in and a private Recall (own database and queue prefix, bench-service.ts) whose
// fast and strong tiers are the stand-in, loads one conversation, and prints facts per turn, the
// share of the stand-in's candidates committed, those validation refused by reason, and entities
// per distinct name the stand-in answered. The last line is one JSON object.
//   --data <dir>          a LoCoMo-format directory (required)
//   --conversation <f>    its file (default: the first)
//   --sessions N          only its first N sessions (default: all)
//   --via turns|batch     POST …/turns one at a time, each read alone (default), or …/turns/batch: windows
//   --model-only          every turn goes to the stand-in (RECALL_HEURISTIC_CONFIDENCE=1): the rules finish none
import pg from "pg";
import { createBenchContext, scopeOf } from "../shared/bench-load";
import { BENCH_ADMIN_KEY, startService } from "../shared/bench-service";
import { loadConversations, type GateConversation, type GateTurn } from "../shared/gate-locomo";
import { drained, poster } from "../economy/economy-recall";
import { standinDiff } from "./standin-answer";
import { startStandinServer, type StandinServer } from "./standin-server";
import { readFactsCounts, type FactsCounts } from "./facts-counts";

interface Options {
  data: string;
  conversation: GateConversation;
  turns: GateTurn[];
  via: "turns" | "batch";
  modelOnly: boolean;
}

async function main(): Promise<void> {
  const options = readOptions();
  const standin = await startStandinServer(options.data);
  try {
    const { conversation, turns } = options;
    console.log(
      `bench:facts: ${turns.length} turns of ${conversation.file} (${conversation.speakers.join(" & ")}) via ${options.via}` +
        `${options.modelOnly ? ", model only" : ""}; the stand-in knows ${standin.index.turns} turns, ${standin.index.annotated} annotated`,
    );
    const counts = await run(options, standin);
    print(counts, standin, turns);
  } finally {
    await standin.close();
  }
}

function readOptions(): Options {
  const arg = (name: string) => {
    const at = process.argv.indexOf(name);
    return at > 0 ? process.argv[at + 1] : undefined;
  };
  const data = arg("--data");
  if (!data) throw new Error("usage: pnpm bench:facts --data <LoCoMo-format dir> [--conversation f] [--sessions N] [--via turns|batch]");
  const conversations = loadConversations(data);
  const file = arg("--conversation") ?? conversations[0]?.file;
  const conversation = conversations.find((c) => c.file === file || c.file === `${file}.json`);
  if (!conversation) throw new Error(`no conversation ${file} in ${data}`);
  const sessions = Number(arg("--sessions") ?? Infinity);
  const turns = conversation.turns.filter((t) => Number(/^D(\d+):/.exec(t.diaId)?.[1]) <= sessions);
  const via = arg("--via") === "batch" ? "batch" : "turns";
  return { data, conversation, turns, via, modelOnly: process.argv.includes("--model-only") };
}

async function run(options: Options, standin: StandinServer): Promise<FactsCounts> {
  const service = await startService({
    RECALL_FAST_MODEL: "openai-compatible:standin-fast",
    RECALL_STRONG_MODEL: "openai-compatible:standin-strong",
    OPENAI_BASE_URL: standin.baseUrl,
    ...(options.modelOnly ? { RECALL_HEURISTIC_CONFIDENCE: "1" } : {}),
  });
  const pool = new pg.Pool({ connectionString: service.config.DATABASE_URL, max: 1 });
  try {
    const ctx = await createBenchContext(service.baseUrl, BENCH_ADMIN_KEY);
    const post = poster(`${service.baseUrl}/api/v1/${ctx.contextId}`, ctx.apiKey);
    const session = (await post("/sessions", {})).session_id as string;
    const scope = scopeOf(options.conversation);
    const body = (t: GateTurn) => ({ role: "user", content: t.text, scope, name: t.speaker, occurred_at: t.referenceTime.toISOString() });
    if (options.via === "batch") await post(`/sessions/${session}/turns/batch`, { turns: options.turns.map(body) });
    else for (const turn of options.turns) await post(`/sessions/${session}/turns`, body(turn));
    await drained(pool, ctx.contextId);
    return await readFactsCounts(pool, ctx.contextId);
  } finally {
    await pool.end();
    await service.close();
  }
}

function print(counts: FactsCounts, standin: StandinServer, turns: GateTurn[]): void {
  const annotated = turns
    .map((t) => standin.index.find({ text: t.text, speaker: t.speaker, when: t.referenceTime }))
    .filter((found) => found !== undefined && found.annotations.length > 0);
  const answered = new Set(annotated.flatMap((found) => standinDiff(found!).entities.map((e) => e.name.toLowerCase())));
  const { candidates, committed, refused } = counts.standin;
  const summary = {
    turns: turns.length,
    annotatedTurns: annotated.length,
    turnsToStandin: standin.counts.turnsAsked,
    annotatedTurnsAnswered: standin.counts.turnsAnnotated,
    chatCalls: standin.counts.chatCalls,
    standinCandidates: candidates,
    standinCommitted: committed,
    committedRatio: candidates > 0 ? round(committed / candidates) : null,
    refusedByReason: refused,
    factsByStage: counts.factsByStage,
    factsPerTurn: round(counts.facts / Math.max(1, turns.length)),
    entities: counts.entities,
    distinctAnsweredNames: answered.size,
    entitiesPerName: answered.size > 0 ? round(counts.entities / answered.size) : null,
    entityChoices: standin.counts.entityChoices,
    unanswered: standin.counts.unanswered,
    tokens: { prompt: standin.counts.promptTokens, completion: standin.counts.completionTokens },
  };
  console.log(
    `  requests: ${summary.chatCalls} (${JSON.stringify(standin.counts.chatByModel)}); turns asked ${summary.turnsToStandin}, found ${standin.counts.turnsFound} (${standin.counts.turnsReasked} asked again), annotated ${summary.annotatedTurnsAnswered} of the ${annotated.length} annotated turns loaded`,
  );
  console.log(
    `  stand-in candidates: ${candidates}, committed ${committed} (${summary.committedRatio ?? "-"}); refused: ${JSON.stringify(refused)}`,
  );
  console.log(`  facts committed: ${counts.facts} (${summary.factsPerTurn} per turn) by stage ${JSON.stringify(counts.factsByStage)}`);
  const beyond = counts.entityNames.filter((n) => !answered.has(n.toLowerCase()));
  console.log(
    `  entities: ${counts.entities} for ${answered.size} distinct names the stand-in answered (${summary.entitiesPerName ?? "-"} per name); ` +
      `not among its names: ${JSON.stringify(beyond)}`,
  );
  console.log(JSON.stringify(summary));
}

const round = (x: number) => Math.round(x * 1000) / 1000;

if (require.main === module) void main();
