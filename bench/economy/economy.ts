// pnpm bench:economy — what model traffic Recall and mem0 (mem0ai's TypeScript SDK, Memory
// from mem0ai/oss) spend on the same LoCoMo conversation turns, against a local
// OpenAI-compatible server that answers at once with an empty extraction and counts chat
// completions, embedding requests and prompt characters (tokens estimated as body chars / 4
// for both). See economy-recall.ts for Recall's two paths and economy-mem0.ts for mem0's.
//   LOCOMO_DIR            data folder (default ../shared/data/locomo from the repo root)
//   ECONOMY_FILE          conversation file (default: the first, 26.json)
//   ECONOMY_TURNS         only the first N turns (default: all)
//   ECONOMY_RECALL        direct,service,bulk (default all three; `service` and `bulk` need Postgres and Redis;
//                         bulk imports the turns through POST …/turns/batch: windowed extraction)
//   ECONOMY_MEM0          on (default), off: Recall only
//   ECONOMY_MEM0_HISTORY  on (mem0's default: its last 10 messages go into each prompt), off
//                         (disableHistory), or both
//   ECONOMY_MEM0_ANSWER   empty (default: {"memory":[]}) or echo (one memory repeating the message)
//   ECONOMY_MEM0_DIR      where mem0ai is installed on first use (default .data/peers/mem0)
import fs from "node:fs";
import path from "node:path";
import { isolateMem0Environment, loadMem0, runMem0 } from "./economy-mem0";
import { runRecallBulk } from "./economy-bulk";
import { runRecallDirect, runRecallService, type RecallRun } from "./economy-recall";
import { printEconomy, type PeerResult } from "./economy-report";
import { startEconomyServer, type Mem0Answer } from "./economy-server";
import { defaultLocomoDir, loadConversations, type GateConversation, type GateTurn } from "../shared/gate-locomo";

const repoRoot = path.resolve(__dirname, "../..");

interface Options {
  conversation: GateConversation;
  turns: GateTurn[];
  recall: string[];
  mem0: boolean;
  histories: boolean[];
  mem0Answer: Mem0Answer;
  mem0Dir: string;
}

async function main(): Promise<void> {
  const options = readOptions();
  if (!options) return;
  const { conversation, turns } = options;
  console.log(
    `bench:economy: ${turns.length} of ${conversation.turns.length} turns of ${conversation.file} (${conversation.speakers.join(" & ")}); ` +
      `the server answers Recall with empty diffs, mem0 with ${options.mem0Answer === "echo" ? "one memory echoing the turn" : "no memories"}`,
  );
  const results: PeerResult[] = [];
  for (const mode of options.recall) results.push(await measure(`Recall ${mode}`, (url) => runRecall(mode, conversation, turns, url)));
  if (options.mem0) results.push(...(await measureMem0(options)));
  printEconomy(results);
  printNotes(results, options.mem0Answer);
}

function readOptions(): Options | undefined {
  const dir = defaultLocomoDir();
  if (!fs.existsSync(dir)) {
    console.log(`bench:economy: no LoCoMo data at ${dir}; set LOCOMO_DIR to measure. Nothing to do.`);
    return undefined;
  }
  const conversations = loadConversations(dir);
  const file = process.env.ECONOMY_FILE ?? conversations[0]?.file;
  const conversation = conversations.find((c) => c.file === file || c.file === `${file}.json`);
  if (!conversation) {
    console.log(`bench:economy: no conversation ${file} in ${dir} (there are: ${conversations.map((c) => c.file).join(", ")}).`);
    return undefined;
  }
  const limit = Number(process.env.ECONOMY_TURNS ?? conversation.turns.length);
  const recall = (process.env.ECONOMY_RECALL ?? "direct,service,bulk").split(",").map((m) => m.trim());
  const unknown = recall.filter((m) => !["direct", "service", "bulk"].includes(m));
  if (unknown.length > 0 || !(limit > 0))
    throw new Error(`ECONOMY_RECALL must list direct, service and/or bulk, ECONOMY_TURNS be positive`);
  const history = process.env.ECONOMY_MEM0_HISTORY ?? "on";
  return {
    conversation,
    turns: conversation.turns.slice(0, limit),
    recall,
    mem0: (process.env.ECONOMY_MEM0 ?? "on") !== "off",
    histories: history === "both" ? [true, false] : [history !== "off"],
    mem0Answer: process.env.ECONOMY_MEM0_ANSWER === "echo" ? "echo" : "empty",
    mem0Dir: path.resolve(repoRoot, process.env.ECONOMY_MEM0_DIR ?? ".data/peers/mem0"),
  };
}

function runRecall(mode: string, conversation: GateConversation, turns: GateTurn[], baseUrl: string): Promise<RecallRun> {
  if (mode === "bulk") return runRecallBulk(conversation, turns, baseUrl);
  return mode === "service" ? runRecallService(conversation, turns, baseUrl) : runRecallDirect(conversation, turns, baseUrl);
}

async function measureMem0(options: Options): Promise<PeerResult[]> {
  const home = isolateMem0Environment();
  try {
    const Memory = loadMem0(options.mem0Dir);
    if (!Memory) return [];
    const userId = `locomo-${options.conversation.file.replace(/\.json$/, "")}`;
    const results: PeerResult[] = [];
    for (const history of options.histories) {
      const name = `mem0 ${history ? "history" : "no-history"}`;
      results.push(await measure(name, (url) => runMem0(options.turns, userId, { Memory, baseUrl: url, history }), options.mem0Answer));
    }
    return results;
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

/** Runs one peer against a fresh counting server, so each column counts only its own traffic. */
async function measure(name: string, run: (baseUrl: string) => Promise<PeerResult["run"]>, mem0Answer?: Mem0Answer): Promise<PeerResult> {
  const server = await startEconomyServer(mem0Answer);
  try {
    console.log(`${name} …`);
    return { name, run: await run(server.baseUrl), counts: server.counts };
  } finally {
    await server.close();
  }
}

const NOTES: [peer: string, note: string][] = [
  ["", "Same turns and the same instant server for every peer; usage is estimated as request body chars / 4 for all."],
  ["", "Own wall time: the run's wall time less the time the counting server spent in its handlers."],
  [
    "Recall direct",
    "Recall direct: the extract worker's calls in-process (heuristics, then the model tiers); no database, nothing embedded.",
  ],
  [
    "Recall service",
    "Recall service: POST /turns through the queues, Postgres and truth maintenance, with RECALL_EMBEDDING_MODEL set (one embeddings call per committed turn, of the turn's text and its facts).",
  ],
  [
    "Recall bulk",
    "Recall bulk: the same turns imported through POST …/turns/batch; heuristics per turn, the rest in windows of consecutive turns (RECALL_WINDOW_MAX_TURNS, default 20), one chat completion per window.",
  ],
  [
    "mem0",
    "mem0: Memory.add([{ role: 'user', content: 'speaker: text' }], { userId }) per turn, SQLite vector store in a temp dir; it embeds 'user: speaker: text'.",
  ],
];

function printNotes(results: PeerResult[], mem0Answer: Mem0Answer): void {
  const notes = NOTES.filter(([peer]) => peer === "" || results.some((r) => r.name.startsWith(peer))).map(([, note]) => note);
  if (mem0Answer === "empty")
    notes.push("Empty answers keep mem0's existing memories and Recall's known entities from growing: real prompts are longer for both.");
  else notes.push("mem0 was answered with one memory per turn (echo), Recall with empty diffs: the peers were not answered alike.");
  console.log("");
  for (const note of notes) console.log(`- ${note}`);
}

main().catch((err: Error) => {
  console.error(err);
  process.exit(1);
});
