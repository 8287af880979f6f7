// bench:recall's conversations, posted once through the real turn path (POST /turns: the
// speaker as `name`, the session's date as `occurred_at`; one context per conversation)
// and reused by later runs: .data/bench-recall.json keeps each context's id, key and the
// dialogue id of every stored turn, with a fingerprint of the data and of how it was loaded.
// A run reuses them when the fingerprint matches and the contexts still hold every turn.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { attachmentsOf, type GateConversation } from "../shared/gate-locomo";
import { createBenchContext } from "../shared/bench-load";

/** Bump when the way conversations are posted changes, so stored contexts are reloaded. */
const LOADER_VERSION = "recall-load-2";

export interface LoadedConversation {
  file: string;
  contextId: string;
  apiKey: string;
  scope: string[];
  /** Dialogue id ("D1:3") of each stored turn, by turn id. */
  diaIds: Record<string, string>;
}

interface SavedState {
  fingerprint: string;
  conversations: LoadedConversation[];
}

export interface LoadTarget {
  baseUrl: string;
  adminKey: string;
  databaseUrl: string;
  stateFile: string;
  /** Part of the fingerprint: vectors exist only for the model that loaded them. */
  embeddingModel?: string;
}

export async function loadOrReuse(target: LoadTarget, conversations: GateConversation[]): Promise<LoadedConversation[]> {
  const fingerprint = fingerprintOf(conversations, target.embeddingModel);
  const saved = readState(target.stateFile);
  if (saved?.fingerprint === fingerprint && (await stillStored(target.databaseUrl, saved.conversations))) {
    console.log(`reusing the ${saved.conversations.length} contexts loaded before (${target.stateFile})`);
    return saved.conversations;
  }
  const turns = conversations.reduce((n, c) => n + c.turns.length, 0);
  console.log(`posting ${turns} turns of ${conversations.length} conversations through POST /turns …`);
  const started = Date.now();
  const loaded = await Promise.all(conversations.map((c) => loadOne(target, c)));
  console.log(`loaded in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  fs.mkdirSync(path.dirname(target.stateFile), { recursive: true });
  fs.writeFileSync(target.stateFile, JSON.stringify({ fingerprint, conversations: loaded } satisfies SavedState));
  return loaded;
}

function fingerprintOf(conversations: GateConversation[], embeddingModel: string | undefined): string {
  const hash = createHash("sha256")
    .update(LOADER_VERSION)
    .update(embeddingModel ?? "no-embeddings");
  for (const c of conversations)
    for (const t of c.turns) hash.update(`${c.file}\0${t.diaId}\0${t.speaker}\0${t.text}\0${t.image?.caption ?? ""}\0`);
  return hash.digest("hex");
}

function readState(file: string): SavedState | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")) as SavedState;
  } catch {
    return undefined;
  }
}

async function stillStored(databaseUrl: string, loaded: LoadedConversation[]): Promise<boolean> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (const c of loaded) {
      const { rows } = await client.query("SELECT count(*)::int AS n FROM turns WHERE context_id = $1", [c.contextId]);
      if (rows[0].n !== Object.keys(c.diaIds).length) return false;
    }
    return true;
  } finally {
    await client.end();
  }
}

async function loadOne(target: LoadTarget, conversation: GateConversation): Promise<LoadedConversation> {
  const { contextId, apiKey } = await createBenchContext(target.baseUrl, target.adminKey);
  const call = async (route: string, body: object) => {
    const res = await fetch(`${target.baseUrl}/api/v1/${contextId}${route}`, {
      method: "POST",
      headers: { "api-key": apiKey, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (res.status >= 400) throw new Error(`POST ${route} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as Record<string, unknown>;
  };
  const scope = ["org=locomo", `conversation=${conversation.file.replace(/\.json$/, "")}`];
  const diaIds: Record<string, string> = {};
  let session = "";
  let sessionOf = "";
  for (const turn of conversation.turns) {
    const sessionNo = turn.diaId.split(":")[0]!;
    if (sessionNo !== sessionOf) {
      session = (await call("/sessions", { metadata: { locomo: conversation.file, session: sessionNo } })).session_id as string;
      sessionOf = sessionNo;
    }
    const attachments = attachmentsOf(turn);
    const body = {
      role: "user",
      content: turn.text,
      scope,
      name: turn.speaker,
      occurred_at: turn.referenceTime.toISOString(),
      ...(attachments.length > 0 ? { attachments } : {}),
    };
    diaIds[(await call(`/sessions/${session}/turns`, body)).turn_id as string] = turn.diaId;
  }
  return { file: conversation.file, contextId, apiKey, scope, diaIds };
}
