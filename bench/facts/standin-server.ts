// The stand-in extraction model: an OpenAI-compatible server (POST /v1/chat/completions) that
// answers Recall's real extraction requests, single turns and windows alike, through the real
// `openai` SDK, with what a dataset's annotators wrote about each turn (standin-answer.ts).
// It finds every turn of a request in the dataset by its text (standin-data.ts) and answers the
// turn's annotations as Recall's diff; a turn without annotations, or not in the dataset, gets
// nothing. It is an upper bound for extraction, not a model: the annotations were written with the
// whole conversation at hand, so they are cleaner than what a model reading one window writes
// (docs/performance.md, "The stand-in extraction model"). Usage is reported as economy-server.ts
// does: one token per four characters of the request body and of the answer.
//   tsx bench/facts/standin-server.ts --data <LoCoMo-format dir> [--port N]
import http from "node:http";
import type { AddressInfo } from "node:net";
import { estimateTokens, parseObject, readBody } from "../economy/economy-server";
import { emptyModelDiff, standinDiff, type ModelDiff } from "./standin-answer";
import { loadStandinIndex, type StandinIndex, type TurnQuery } from "./standin-data";
import { askedTurns, type KnownTypes } from "./standin-request";

export interface StandinCounts {
  chatCalls: number;
  chatByModel: Record<string, number>;
  promptTokens: number;
  completionTokens: number;
  /** Turns the requests held (a turn read again by the strong tier counts again). */
  turnsAsked: number;
  /** Turns asked for again (a fast answer escalated to the strong tier, a window split and retried). */
  turnsReasked: number;
  /** Distinct turns of the dataset asked for, and those of them with annotations. */
  turnsFound: number;
  turnsAnnotated: number;
  /** Items answered, by list (entities, attributes, relations). */
  items: Record<string, number>;
  /** Contested names the commit asked about: answered with the known entity of that very name, or as new. */
  entityChoices: { known: number; new: number };
  /** Requests the stand-in could not read (wrong route, unknown schema). */
  unanswered: number;
  /** The dataset's turns asked for so far ("file dia_id"). */
  seen: Set<string>;
}

export interface StandinServer {
  /** The OpenAI SDK baseURL (OPENAI_BASE_URL). */
  baseUrl: string;
  index: StandinIndex;
  counts: StandinCounts;
  close(): Promise<void>;
}

const LISTS = ["entities", "attributes", "relations", "instructions", "revocations", "uncertainties"] as const;

/**
 * `instant`: every annotated turn's reading is worked out before the server answers (standin-answer.ts keeps each
 * annotation's reading by the turn's text), so an answer costs a lookup, as an instant model's would, and a
 * benchmark's CPU figures are Recall's, not the stand-in's parsing. A request whose text differs from the dataset's is
 * still read when it comes.
 */
export async function startStandinServer(dataDir: string, port = 0, options: { instant?: boolean } = {}): Promise<StandinServer> {
  const index = loadStandinIndex(dataDir);
  if (options.instant) for (const turn of index.annotatedTurns()) standinDiff(turn);
  const counts: StandinCounts = {
    chatCalls: 0,
    chatByModel: {},
    promptTokens: 0,
    completionTokens: 0,
    turnsAsked: 0,
    turnsReasked: 0,
    turnsFound: 0,
    turnsAnnotated: 0,
    items: {},
    entityChoices: { known: 0, new: 0 },
    unanswered: 0,
    seen: new Set(),
  };
  const server = http.createServer((req, res) => {
    void readBody(req).then((raw) => {
      const reply = answer(req.url ?? "", raw, index, counts);
      res.writeHead(reply.status, { "content-type": "application/json" });
      res.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    index,
    counts,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}

interface Reply {
  status: number;
  body: unknown;
}

function answer(url: string, raw: string, index: StandinIndex, counts: StandinCounts): Reply {
  const body = parseObject(raw);
  const schema = (body?.response_format as { json_schema?: { name?: string } } | undefined)?.json_schema?.name ?? "";
  const messages = Array.isArray(body?.messages) ? (body.messages as { role?: string; content?: unknown }[]) : [];
  const user = messages.find((m) => m.role === "user")?.content;
  const asked = url.split("?")[0] === "/v1/chat/completions" && typeof user === "string" ? askedTurns(schema, user) : undefined;
  if (!body || !asked) {
    counts.unanswered += 1;
    return {
      status: 400,
      body: { error: { message: `stand-in: cannot read a ${schema || "non-extraction"} request`, type: "invalid_request_error" } },
    };
  }
  if (asked.schema === "entity_choice") {
    counts.entityChoices[asked.choice === "new" ? "new" : "known"] += 1;
    return completion(body, raw.length, { choice: asked.choice, reason: "the dataset names one thing one way" }, counts);
  }
  const content =
    asked.schema === "extraction_diff"
      ? diffFor(asked.turn, asked.known, index, counts)
      : numbered(asked.turns.map((t) => diffFor(t, asked.known, index, counts)));
  return completion(body, raw.length, content, counts);
}

function diffFor(query: TurnQuery | undefined, known: KnownTypes, index: StandinIndex, counts: StandinCounts): ModelDiff {
  if (!query) return emptyModelDiff();
  counts.turnsAsked += 1;
  const turn = index.find(query);
  if (!turn) return emptyModelDiff();
  const first = !counts.seen.has(`${turn.file} ${turn.diaId}`);
  counts.seen.add(`${turn.file} ${turn.diaId}`);
  if (first) counts.turnsFound += 1;
  else counts.turnsReasked += 1;
  if (turn.annotations.length === 0) return emptyModelDiff();
  if (first) counts.turnsAnnotated += 1;
  // Evidence is quoted from the text Recall sent, which is the source it checks quotes against.
  const diff = standinDiff({ ...turn, text: query.text }, known);
  for (const list of LISTS) counts.items[list] = (counts.items[list] ?? 0) + diff[list].length;
  return diff;
}

/** A window's answer: each turn's items with the turn's index. */
function numbered(diffs: ModelDiff[]): Record<(typeof LISTS)[number], unknown[]> {
  const lists = Object.fromEntries(LISTS.map((list) => [list, [] as unknown[]])) as Record<(typeof LISTS)[number], unknown[]>;
  diffs.forEach((diff, turn) => {
    for (const list of LISTS) lists[list].push(...diff[list].map((item) => ({ ...item, turn })));
  });
  return lists;
}

function completion(body: Record<string, unknown>, bodyChars: number, content: unknown, counts: StandinCounts): Reply {
  const model = typeof body.model === "string" ? body.model : "standin";
  const text = JSON.stringify(content);
  const [prompt, completionTokens] = [estimateTokens(bodyChars), estimateTokens(text.length)];
  counts.chatCalls += 1;
  counts.chatByModel[model] = (counts.chatByModel[model] ?? 0) + 1;
  counts.promptTokens += prompt;
  counts.completionTokens += completionTokens;
  const choice = { index: 0, message: { role: "assistant", content: text, refusal: null }, finish_reason: "stop", logprobs: null };
  const usage = { prompt_tokens: prompt, completion_tokens: completionTokens, total_tokens: prompt + completionTokens };
  return {
    status: 200,
    body: { id: `chatcmpl-standin${counts.chatCalls}`, object: "chat.completion", created: 0, model, choices: [choice], usage },
  };
}

async function main(): Promise<void> {
  const arg = (name: string) => {
    const at = process.argv.indexOf(name);
    return at > 0 ? process.argv[at + 1] : undefined;
  };
  const data = arg("--data");
  if (!data) throw new Error("usage: tsx bench/facts/standin-server.ts --data <LoCoMo-format dir> [--port N]");
  const server = await startStandinServer(data, Number(arg("--port") ?? 0));
  console.log(`stand-in model on ${server.baseUrl}: ${server.index.turns} turns, ${server.index.annotated} annotated (${data})`);
  console.log(`point Recall at it: RECALL_FAST_MODEL=openai-compatible:standin OPENAI_BASE_URL=${server.baseUrl}`);
}

if (require.main === module) void main();
