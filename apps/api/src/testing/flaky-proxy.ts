// A proxy in front of a running API that refuses, holds or passes each request as a test
// plans it, and records every request it saw: how a client's retries, idempotency keys,
// timeouts and aborts are tested against the real service behind it.
import type http from "node:http";
import { listen } from "./listen";

export type ProxyAction =
  | "forward"
  /** Answer this instead of the API, e.g. a 503 with Retry-After. */
  | { status: number; headers?: Record<string, string>; body?: unknown }
  /** Wait this long, then forward (a client with a shorter timeout gives up first). */
  | { holdMs: number };

export interface SeenRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** Milliseconds since the proxy started. */
  at: number;
}

export interface FlakyProxy {
  url: string;
  seen: SeenRequest[];
  /** Decides each request from now on; `n` counts requests seen, from 0. */
  plan(decide: (request: SeenRequest, n: number) => ProxyAction): void;
  close(): Promise<void>;
}

const HOP_HEADERS = new Set(["host", "connection", "content-length", "transfer-encoding", "content-encoding", "keep-alive"]);

export async function startFlakyProxy(upstream: string): Promise<FlakyProxy> {
  const started = Date.now();
  const seen: SeenRequest[] = [];
  let decide: (request: SeenRequest, n: number) => ProxyAction = () => "forward";
  const server = await listen((req, res) => {
    const request: SeenRequest = { method: req.method ?? "GET", path: req.url ?? "/", headers: req.headers, at: Date.now() - started };
    const action = decide(request, seen.length);
    seen.push(request);
    void answer(upstream, req, res, action).catch(() => res.destroy());
  });
  return {
    url: server.url,
    seen,
    plan: (next) => void (decide = next),
    close: () => server.close(),
  };
}

async function answer(upstream: string, req: http.IncomingMessage, res: http.ServerResponse, action: ProxyAction): Promise<void> {
  const body = await readBody(req);
  if (typeof action === "object" && "status" in action) {
    res.writeHead(action.status, { "content-type": "application/problem+json", ...action.headers });
    return void res.end(
      JSON.stringify(action.body ?? { type: "about:blank", title: "refused by the test proxy", status: action.status, detail: "" }),
    );
  }
  if (typeof action === "object" && !(await hold(res, action.holdMs))) return;
  const headers = Object.entries(req.headers).filter(([name]) => !HOP_HEADERS.has(name)) as [string, string][];
  const upstreamRes = await fetch(`${upstream}${req.url}`, { method: req.method, headers, body: body.length ? body : undefined });
  const reply = Buffer.from(await upstreamRes.arrayBuffer());
  const replyHeaders = [...upstreamRes.headers].filter(([name]) => !HOP_HEADERS.has(name));
  res.writeHead(upstreamRes.status, Object.fromEntries(replyHeaders));
  res.end(reply);
}

/** Waits `ms`; false when the client hung up first (nothing is forwarded then). */
function hold(res: http.ServerResponse, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(!res.destroyed), ms);
    res.once("close", () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}
