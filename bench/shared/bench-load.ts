// Loads the LoCoMo conversations through the real turn path: POST /sessions/{id}/turns,
// which answers only after the turn's extraction is committed (heuristics only: no model
// is configured, so turns that need one end `failed` and stay searchable as raw text).
// Conversations load concurrently; turns within one keep their order.
import { attachmentsOf, type GateConversation } from "./gate-locomo";

export interface LoadedContext {
  contextId: string;
  apiKey: string;
  /** Scope of each conversation, by file name. */
  scopes: Map<string, string[]>;
}

export interface LoadSummary {
  turns: number;
  committed: number;
  failed: number;
  seconds: number;
}

export async function createBenchContext(baseUrl: string, adminKey: string): Promise<Omit<LoadedContext, "scopes">> {
  const res = await fetch(`${baseUrl}/api/v1/contexts`, {
    method: "POST",
    headers: { authorization: `Bearer ${adminKey}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "locomo-bench" }),
  });
  const body = (await res.json()) as { context_id: string; api_key: string };
  return { contextId: body.context_id, apiKey: body.api_key };
}

export async function loadConversations(baseUrl: string, ctx: LoadedContext, conversations: GateConversation[]): Promise<LoadSummary> {
  const started = Date.now();
  const outcomes = await Promise.all(conversations.map((c) => loadOne(baseUrl, ctx, c)));
  const all = outcomes.flat();
  return {
    turns: all.length,
    committed: all.filter((s) => s === "committed").length,
    failed: all.filter((s) => s === "failed").length,
    seconds: (Date.now() - started) / 1000,
  };
}

export function scopeOf(conversation: GateConversation): string[] {
  return ["org=locomo", `conversation=${conversation.file.replace(/\.json$/, "")}`];
}

async function loadOne(baseUrl: string, ctx: LoadedContext, conversation: GateConversation): Promise<string[]> {
  const call = (path: string, body: object) =>
    fetch(`${baseUrl}/api/v1/${ctx.contextId}${path}`, {
      method: "POST",
      headers: { "api-key": ctx.apiKey, "content-type": "application/json" },
      body: JSON.stringify(body),
    }).then((r) => r.json() as Promise<Record<string, unknown>>);
  const session = (await call("/sessions", { metadata: { locomo: conversation.file } })).session_id as string;
  const scope = scopeOf(conversation);
  ctx.scopes.set(conversation.file, scope);
  const statuses: string[] = [];
  for (const turn of conversation.turns) {
    const attachments = attachmentsOf(turn);
    const answer = await call(`/sessions/${session}/turns`, {
      role: "user",
      content: turn.text,
      scope,
      ...(attachments.length > 0 ? { attachments } : {}),
    });
    statuses.push(((answer.extraction as { status?: string } | undefined)?.status ?? "error") as string);
  }
  return statuses;
}
