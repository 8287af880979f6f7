// The HTTP side of the performance report: a context, sessions, turns posted as a user would,
// and the percentiles they are summarised by.
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import { performance } from "node:perf_hooks";
import { runHeuristics } from "@recall/heuristics";
import { defaultLocomoDir, loadConversations } from "../shared/gate-locomo";

export interface Api {
  baseUrl: string;
  contextId: string;
  apiKey: string;
}

export async function newContext(baseUrl: string, admin: string): Promise<Api> {
  const res = await fetch(`${baseUrl}/api/v1/contexts`, {
    method: "POST",
    headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "perf" }),
  });
  const body = (await res.json()) as { context_id: string; api_key: string };
  return { baseUrl, contextId: body.context_id, apiKey: body.api_key };
}

export async function call(
  api: Api,
  method: string,
  route: string,
  body?: object,
): Promise<{ status: number; body: Record<string, unknown> }> {
  // A kept-alive connection the server closes just as it is reused fails the request before it is sent
  // or after: resent under one Idempotency-Key, it runs once either way.
  const headers = { "api-key": api.apiKey, "content-type": "application/json", "idempotency-key": randomUUID() };
  for (let attempt = 1; ; attempt++) {
    try {
      const res = await fetch(`${api.baseUrl}/api/v1/${api.contextId}${route}`, {
        method,
        headers,
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    } catch (err) {
      const code = ((err as Error).cause as { code?: string } | undefined)?.code;
      if (attempt >= 3 || (code !== "UND_ERR_SOCKET" && code !== "ECONNRESET")) throw err;
    }
  }
}

export async function newSession(api: Api): Promise<string> {
  return (await call(api, "POST", "/sessions", {})).body.session_id as string;
}

export interface TurnText {
  text: string;
  speaker: string;
}

/** Posts one interactive turn; returns its wall time and outcome. */
export async function postTurn(api: Api, session: string, turn: TurnText): Promise<{ ms: number; status: string }> {
  const started = performance.now();
  const res = await call(api, "POST", `/sessions/${session}/turns`, {
    role: "user",
    content: turn.text,
    name: turn.speaker,
    scope: ["org=perf"],
  });
  const status = res.status === 200 ? ((res.body.extraction as { status: string }).status ?? "?") : `http ${res.status}`;
  return { ms: performance.now() - started, status };
}

/** LoCoMo turns when the data is there (read only), else a generated stand-in. `model`: only turns the heuristics leave to a model. */
export function benchTurns(which: "any" | "model"): TurnText[] {
  const dir = defaultLocomoDir();
  const all: TurnText[] = fs.existsSync(dir)
    ? loadConversations(dir).flatMap((c) => c.turns.map((t) => ({ text: t.text, speaker: t.speaker })))
    : Array.from({ length: 500 }, (_, i) => ({
        text: `Jordan said the Zephyr ${i} review moved to week ${i % 52} after the audit.`,
        speaker: "Sam",
      }));
  if (which === "any") return all;
  return all.filter(
    (t) =>
      !runHeuristics(
        {
          text: t.text,
          kind: "turn",
          role: "user",
          speaker: t.speaker,
          referenceTime: new Date(),
          knownEntities: [],
          knownAttributes: [],
          activeInstructions: [],
        },
        { threshold: 0.75 },
      ).finished,
  );
}

export function cycle<T>(items: T[], n: number): T[] {
  return Array.from({ length: n }, (_, i) => items[i % items.length]!);
}

export interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
}

export function percentiles(times: number[]): Percentiles {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}

/** Runs `work` over `items` with `clients` concurrent callers, each taking the next item. */
export async function concurrently<T>(items: T[], clients: number, work: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = next++; i < items.length; i = next++) await work(items[i]!, i);
    }),
  );
}

export const fmt = (n: number, digits = 1) => n.toFixed(digits);
