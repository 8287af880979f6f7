// The API as its own process (apps/api/src/main.ts compiled to JavaScript and run by node, as the image runs it;
// supervisor.faults.test.ts starts it under tsx, as `pnpm start` does), for tests that signal it: SIGTERM and the
// time until it exits.
import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import { inheritedEnv } from "@recall/config";
import { compiledEntry, freePort, portAnswers } from "@recall/test-support";

const API_ENTRY = "apps/api/src/main.ts";

export interface ApiProcess {
  url: string;
  port: number;
  child: ChildProcess;
  output: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM; resolves with the time until the process exited, and how. */
  terminate(): Promise<{ ms: number; code: number | null; signal: NodeJS.Signals | null }>;
  kill(): void;
}

export async function startApiProcess(env: Record<string, string>): Promise<ApiProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--enable-source-maps", await compiledEntry(API_ENTRY)], {
    env: { ...inheritedEnv(), ...env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const keep = (chunk: Buffer) => output.push(chunk.toString());
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const url = `http://127.0.0.1:${port}`;
  await waitUntilListening(port, exited, output);
  return {
    url,
    port,
    child,
    output,
    exited,
    async terminate() {
      const started = Date.now();
      child.kill("SIGTERM");
      const exit = await exited;
      return { ms: Date.now() - started, ...exit };
    },
    kill: () => void child.kill("SIGKILL"),
  };
}

async function waitUntilListening(port: number, exited: Promise<unknown>, output: string[], timeoutMs = 120_000): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + timeoutMs;
  while (!(await connects(port))) {
    if (gone) throw new Error(`the API exited while starting:\n${output.join("")}`);
    if (Date.now() > deadline) throw new Error(`the API did not listen within ${timeoutMs} ms:\n${output.join("")}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Whether a TCP connection to the port is accepted now. */
export function connects(port: number): Promise<boolean> {
  return portAnswers("127.0.0.1", port);
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Requests written one after another on ONE connection (HTTP/1.1 pipelining), the way a kept-alive
 * client reuses its connection: the server reads the later ones while the first is still in flight.
 * `between` runs after the first request is written and before the others are.
 */
export async function pipelined(port: number, requests: string[], between: () => Promise<void>): Promise<RawResponse[]> {
  const socket = net.connect(port, "127.0.0.1");
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  let buffer = Buffer.alloc(0);
  const responses: RawResponse[] = [];
  const done = new Promise<RawResponse[]>((resolve) => {
    socket.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (let parsed = parseResponse(buffer); parsed; parsed = parseResponse(buffer)) {
        responses.push(parsed.response);
        buffer = buffer.subarray(parsed.length);
        if (responses.length === requests.length) resolve(responses);
      }
    });
    socket.on("close", () => resolve(responses));
  });
  socket.write(requests[0]!);
  await between();
  for (const request of requests.slice(1)) socket.write(request);
  const result = await done;
  socket.destroy();
  return result;
}

/** One HTTP request as bytes. */
export function rawRequest(method: string, path: string, headers: Record<string, string> = {}, body?: object): string {
  const text = body === undefined ? "" : JSON.stringify(body);
  const lines = [`${method} ${path} HTTP/1.1`, "Host: 127.0.0.1", ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  if (body !== undefined) lines.push("Content-Type: application/json", `Content-Length: ${Buffer.byteLength(text)}`);
  return `${lines.join("\r\n")}\r\n\r\n${text}`;
}

function parseResponse(buffer: Buffer): { response: RawResponse; length: number } | undefined {
  const end = buffer.indexOf("\r\n\r\n");
  if (end < 0) return undefined;
  const [statusLine, ...headerLines] = buffer.subarray(0, end).toString("latin1").split("\r\n");
  const headers = Object.fromEntries(
    headerLines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]),
  );
  const length = Number(headers["content-length"] ?? 0);
  if (buffer.length < end + 4 + length) return undefined;
  const body = buffer.subarray(end + 4, end + 4 + length).toString("utf8");
  return { response: { status: Number(statusLine!.split(" ")[1]), headers, body }, length: end + 4 + length };
}
