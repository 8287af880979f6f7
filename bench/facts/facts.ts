// pnpm bench:facts --data <dir> — what Recall commits, and how it reads back, when its extraction
// model answers with the dataset's own annotations (the stand-in, standin-server.ts): an upper
// bound for extraction. It starts the stand-in and a private Recall (own database and queue
// prefix, bench-service.ts) whose fast and strong tiers are the stand-in, loads every conversation
// of the directory into a context of its own by bulk import (…/turns/batch: windows) and, on the
// first sessions, by interactive turns, and prints facts per turn, the stand-in's candidates
// committed and refused by reason, entities per distinct name, supersessions, stage times and
// bytes per turn, then the retrieval figures (facts-retrieval.ts). The last line is one JSON object.
//   --data <dir>                a LoCoMo-format directory (required)
//   --conversation <f>          only this file (default: all; leave-one-out needs two or more)
//   --sessions N                only the first N sessions of each (default: all)
//   --interactive-sessions N    interactive turns on the first N sessions of each (default 2; 0: none)
//   --model-only                every turn goes to the stand-in (RECALL_HEURISTIC_CONFIDENCE=1)
//   --no-loo                    skip the leave-one-out ascent
//   --bulk-only                 stop after the bulk import's figures (no retrieval)
//   --keep-database <name>      load into this database and keep it (created when missing; one run a name)
//   --outbox-poll-ms N          the outbox relay's safety-net poll (default 2,000, a deployment's; the benches' is 20)
//   --no-model                  no model at all (the rules' reading only, the rest awaiting a model): the same import's floor
//   --count-sql                 count the statements Recall sends during the bulk import (bench/shared/sql-counter.ts)
import pg from "pg";
import { startService } from "../shared/bench-service";
import type { GateConversation } from "../shared/gate-locomo";
import { readRecallData, type RecallData } from "../recall/recall-data";
import { standinDiff } from "./standin-answer";
import { startStandinServer, type StandinServer } from "./standin-server";
import { readFactsCounts, type FactsCounts } from "./facts-counts";
import { loadAll, type LoadRun } from "./facts-load";
import { readBytesByTable, readStageTimes, readSupersessions } from "./facts-store";
import { measureRetrieval } from "./facts-retrieval";
import { p50 } from "../recall/recall-http";
import * as sqlCounter from "../shared/sql-counter";
import { startCpuMeter } from "../shared/cpu-meter";

interface Options {
  data: RecallData;
  dir: string;
  interactiveSessions: number;
  modelOnly: boolean;
  loo: boolean;
  bulkOnly: boolean;
  countSql: boolean;
  keepDatabase?: string;
  outboxPollMs: number;
  noModel: boolean;
}

async function main(): Promise<void> {
  const options = readOptions();
  const standin = await startStandinServer(options.dir, 0, { instant: true });
  const service = await startService(
    {
      ...(options.noModel
        ? {}
        : {
            RECALL_FAST_MODEL: "openai-compatible:standin-fast",
            RECALL_STRONG_MODEL: "openai-compatible:standin-strong",
            OPENAI_BASE_URL: standin.baseUrl,
          }),
      TURN_TIMEOUT_MS: "300000",
      // A deployment's safety-net poll: the relay is woken by NOTIFY, and commits create truth maintenance's items
      // themselves. The benches' 20 ms poll (bench-service.ts) cost a relay transaction per imported turn here.
      OUTBOX_POLL_MS: String(options.outboxPollMs),
      ...(options.modelOnly ? { RECALL_HEURISTIC_CONFIDENCE: "1" } : {}),
    },
    options.keepDatabase ? { keepDatabase: options.keepDatabase } : {},
  );
  const pool = new pg.Pool({ connectionString: service.config.DATABASE_URL, max: 2 });
  sqlCounter.ignore(pool);
  try {
    const { conversations } = options.data;
    const turns = conversations.reduce((n, c) => n + c.turns.length, 0);
    console.log(
      `bench:facts: ${turns} turns of ${conversations.length} conversations${options.modelOnly ? ", model only" : ""}; ` +
        `the stand-in knows ${standin.index.turns} turns, ${standin.index.annotated} annotated`,
    );
    // The stand-in reads every annotation once, before any clock starts, so its answers cost a lookup (standin-answer.ts).
    for (const c of conversations) answeredNames(standin, c);
    const interactive = await interactiveRun(service.baseUrl, pool, options, standin);
    if (options.countSql) sqlCounter.start();
    const meter = await startCpuMeter(pool);
    const bulk = await loadAll(service.baseUrl, pool, conversations, "batch");
    const cpu = await meter.stop();
    console.log(
      `  CPU per imported turn: ${(cpu.processMs / bulk.turns).toFixed(2)} ms this process (service and benchmark), ` +
        `${(cpu.postgresMs / bulk.turns).toFixed(2)} ms Postgres`,
    );
    const counted = options.countSql ? sqlCounter.report(bulk.turns) : undefined;
    const summary = await describe("bulk import (…/turns/batch)", pool, bulk, standin, conversations);
    await printStore(pool, bulk);
    await service.stopWorkers();
    const bulkTurnsPerS = round(bulk.turns / bulk.seconds);
    const sql = {
      cpu_ms_per_turn: round(cpu.processMs / bulk.turns),
      postgres_cpu_ms_per_turn: round(cpu.postgresMs / bulk.turns),
      ...(counted && { statements_per_turn: round(counted.statements), transactions_per_turn: round(counted.transactions) }),
    };
    if (options.bulkOnly) {
      console.log(JSON.stringify({ ...summary, ...sql, bulk_turns_per_s: bulkTurnsPerS, interactive }));
      return;
    }
    const retrieval = await measureRetrieval(
      { baseUrl: service.baseUrl, databaseUrl: service.config.DATABASE_URL },
      options.data,
      bulk.loaded,
      options.loo,
    );
    console.log(JSON.stringify({ ...summary, ...sql, ...retrieval, bulk_turns_per_s: bulkTurnsPerS, interactive }));
  } finally {
    await pool.end();
    await service.close();
    await standin.close();
  }
}

function readOptions(): Options {
  const arg = (name: string) => {
    const at = process.argv.indexOf(name);
    return at > 0 ? process.argv[at + 1] : undefined;
  };
  const dir = arg("--data");
  if (!dir)
    throw new Error("usage: pnpm bench:facts --data <LoCoMo-format dir> [--conversation f] [--sessions N] [--interactive-sessions N]");
  const all = readRecallData(dir);
  const file = arg("--conversation");
  const sessions = Number(arg("--sessions") ?? Infinity);
  const conversations = all.conversations
    .filter((c) => !file || c.file === file || c.file === `${file}.json`)
    .map((c) => ({ ...c, turns: c.turns.filter((t) => sessionOf(t.diaId) <= sessions) }));
  if (conversations.length === 0) throw new Error(`no conversation ${file} in ${dir}`);
  const kept = new Set(conversations.flatMap((c) => c.turns.map((t) => `${c.file}\0${t.diaId}`)));
  const questions = all.questions.filter((q) => q.evidence.some((id) => kept.has(`${q.file}\0${id}`)));
  return {
    data: { conversations, questions },
    dir,
    interactiveSessions: Number(arg("--interactive-sessions") ?? 2),
    modelOnly: process.argv.includes("--model-only"),
    loo: !process.argv.includes("--no-loo"),
    bulkOnly: process.argv.includes("--bulk-only"),
    countSql: process.argv.includes("--count-sql"),
    keepDatabase: arg("--keep-database"),
    outboxPollMs: Number(arg("--outbox-poll-ms") ?? 2_000),
    noModel: process.argv.includes("--no-model"),
  };
}

const sessionOf = (diaId: string) => Number(/^D(\d+):/.exec(diaId)?.[1]);

/** Interactive turns on the first sessions of each conversation, in contexts of their own. */
async function interactiveRun(baseUrl: string, pool: pg.Pool, options: Options, standin: StandinServer) {
  if (options.interactiveSessions <= 0) return null;
  const conversations = options.data.conversations.map((c) => ({
    ...c,
    turns: c.turns.filter((t) => sessionOf(t.diaId) <= options.interactiveSessions),
  }));
  const run = await loadAll(baseUrl, pool, conversations, "turns");
  const summary = await describe(
    `interactive turns (first ${options.interactiveSessions} sessions of each)`,
    pool,
    run,
    standin,
    conversations,
  );
  await printTimes(pool, run);
  console.log(`  POST …/turns p50 ${p50(run.turnMs).toFixed(1)} ms`);
  return { ...summary, turn_p50_ms: round(p50(run.turnMs)) };
}

/** Facts, refusals and entities of a run's contexts, printed, and the JSON figures they give. */
async function describe(label: string, pool: pg.Pool, run: LoadRun, standin: StandinServer, conversations: GateConversation[]) {
  const counts = await Promise.all(run.loaded.map((c) => readFactsCounts(pool, c.contextId)));
  const total = sumCounts(counts);
  const names = conversations.reduce((n, c) => n + answeredNames(standin, c).size, 0);
  const { candidates, committed, refused } = total.standin;
  const figures = {
    turns: run.turns,
    facts_per_turn: round(total.facts / Math.max(1, run.turns)),
    committed_ratio: candidates > 0 ? round(committed / candidates) : null,
    refused_by_reason: refused,
    entities_per_name: names > 0 ? round(total.entities / names) : null,
    failed: run.failed,
  };
  console.log(
    `\n${label}: ${run.turns} turns in ${run.seconds.toFixed(0)} s (${(run.turns / run.seconds).toFixed(1)} turns/s to all done)`,
  );
  console.log(
    `  stand-in candidates: ${candidates}, committed ${committed} (${figures.committed_ratio ?? "-"}); refused: ${JSON.stringify(refused)}`,
  );
  console.log(`  facts committed: ${total.facts} (${figures.facts_per_turn} per turn) by stage ${JSON.stringify(total.factsByStage)}`);
  console.log(
    `  entities: ${total.entities} for ${names} distinct names the stand-in answered (${figures.entities_per_name ?? "-"} per name)`,
  );
  console.log(`  work items failed: ${run.failed}`);
  return figures;
}

function sumCounts(counts: FactsCounts[]): FactsCounts {
  const add = (a: Record<string, number>, b: Record<string, number>) => {
    for (const [k, v] of Object.entries(b)) a[k] = (a[k] ?? 0) + v;
    return a;
  };
  return counts.reduce(
    (t, c) => ({
      standin: {
        candidates: t.standin.candidates + c.standin.candidates,
        committed: t.standin.committed + c.standin.committed,
        refused: add(t.standin.refused, c.standin.refused),
        other: add(t.standin.other, c.standin.other),
      },
      facts: t.facts + c.facts,
      factsByStage: add(t.factsByStage, c.factsByStage),
      entities: t.entities + c.entities,
      entityNames: [...t.entityNames, ...c.entityNames],
    }),
    { standin: { candidates: 0, committed: 0, refused: {}, other: {} }, facts: 0, factsByStage: {}, entities: 0, entityNames: [] },
  );
}

/** The distinct names (lower-cased) of what the stand-in answers for a conversation's annotated turns. */
function answeredNames(standin: StandinServer, conversation: GateConversation): Set<string> {
  const found = conversation.turns
    .map((t) => standin.index.find({ text: t.text, speaker: t.speaker, when: t.referenceTime }))
    .filter((f) => f !== undefined && f.annotations.length > 0);
  return new Set(found.flatMap((f) => standinDiff(f!).entities.map((e) => e.name.toLowerCase())));
}

async function printTimes(pool: pg.Pool, run: LoadRun): Promise<void> {
  const times = await readStageTimes(
    pool,
    run.loaded.map((c) => c.contextId),
  );
  for (const [stage, t] of Object.entries(times))
    console.log(
      `  ${stage}: ${t.attempts} attempts, busy ${(t.busyMs / run.turns).toFixed(2)} ms per turn (attempts' wall_ms summed: ${(t.summedMs / run.turns).toFixed(2)})`,
    );
}

/** Supersessions (20 of them for a person to audit), stage times and bytes per turn of the bulk contexts. */
async function printStore(pool: pg.Pool, run: LoadRun): Promise<void> {
  const supersessions = (await Promise.all(run.loaded.map((c) => readSupersessions(pool, c.contextId)))).flat();
  console.log(`  supersessions: ${supersessions.length}; 20 of them, old → new:`);
  const step = Math.max(1, Math.floor(supersessions.length / 20));
  for (const s of supersessions.filter((_, i) => i % step === 0).slice(0, 20))
    console.log(
      `    ${s.subject} ${s.key}: "${s.older.value}" → "${s.newer.value}"\n      old quote: ${JSON.stringify(s.older.quote)}\n      new quote: ${JSON.stringify(s.newer.quote)}`,
    );
  await printTimes(pool, run);
  const bytes = await readBytesByTable(
    pool,
    run.loaded.map((c) => c.contextId),
  );
  const perTurn = Object.entries(bytes)
    .sort((a, b) => b[1] - a[1])
    .map(([t, b]) => `${t} ${(b / run.turns).toFixed(0)}`);
  const total = Object.values(bytes).reduce((a, b) => a + b, 0);
  console.log(`  row bytes per turn (pg_column_size, no indexes): ${(total / run.turns).toFixed(0)}: ${perTurn.join(", ")}`);
}

const round = (x: number) => Math.round(x * 1000) / 1000;

if (require.main === module) void main();
