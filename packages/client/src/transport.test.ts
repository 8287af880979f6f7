// The client against real sockets: a port nobody listens on, a server that drops the connection before answering,
// a server that asks to come back later. What reaches the caller is the client's own error, with the cause kept;
// a write is sent again only under the same Idempotency-Key.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { RecallConnectionError, RecallError } from "./errors";
import { RecallClient } from "./recall-client";

type Reply = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** A server answering its n-th request with replies[n] (the last one again after that), recording what came. */
async function scriptedServer(replies: Reply[]) {
  const seen: { method: string; key: string | undefined }[] = [];
  const server = http.createServer((req, res) => {
    seen.push({ method: req.method!, key: req.headers["idempotency-key"] as string | undefined });
    req.resume();
    req.on("end", () => replies[Math.min(seen.length - 1, replies.length - 1)]!(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Reply =>
  (_req, res) => {
    res.writeHead(status, { "Content-Type": status < 400 ? "application/json" : "application/problem+json", ...headers });
    res.end(JSON.stringify(body));
  };
/** Closes the connection with a TCP reset before any answer. */
const reset: Reply = (req) => req.socket.resetAndDestroy();

const clientOf = (baseUrl: string, maxDelayMs = 30_000) =>
  new RecallClient({ baseUrl, contextId: "c", apiKey: "k", retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs } });

test("a refused connection is a RecallConnectionError naming the code, with fetch's error as its cause, after every attempt", async () => {
  const gone = await scriptedServer([json(200, {})]);
  await gone.close(); // its port now refuses
  const error = await clientOf(gone.url)
    .sessions.create()
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(RecallConnectionError);
  expect(error).toMatchObject({ code: "ECONNREFUSED", attempts: 3, method: "POST" });
  expect(((error as Error).cause as Error).message).toBe("fetch failed");
});

/** A scripted server for the length of `use`, closed however it ends. */
async function withServer<T>(replies: Reply[], use: (server: Awaited<ReturnType<typeof scriptedServer>>) => Promise<T>): Promise<T> {
  const server = await scriptedServer(replies);
  try {
    return await use(server);
  } finally {
    await server.close();
  }
}

test("a write whose connection is reset is sent again with the same Idempotency-Key", () =>
  withServer([reset, json(201, { session_id: "s-1" })], async (server) => {
    expect(await clientOf(server.url).sessions.create()).toEqual({ session_id: "s-1" });
    expect(server.seen).toHaveLength(2);
    expect(server.seen[0]!.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(server.seen[1]!.key).toBe(server.seen[0]!.key);
  }));

test("a connection reset on every attempt ends as a RecallConnectionError, not fetch's TypeError", () =>
  withServer([reset], async (server) => {
    const error = await clientOf(server.url)
      .profile({})
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RecallConnectionError);
    expect(error).toMatchObject({ attempts: 3, method: "GET" });
    expect(server.seen).toHaveLength(3);
  }));

test("Retry-After is honoured up to the caller's maxDelayMs; past it the call fails at once, carrying the wait asked", async () => {
  const busy = json(503, { type: "about:blank", title: "busy", status: 503, detail: "try later" }, { "Retry-After": "1" });
  await withServer([busy, json(201, { session_id: "s-2" })], async (server) => {
    expect(await clientOf(server.url, 5_000).sessions.create()).toEqual({ session_id: "s-2" });
    expect(server.seen.map((s) => s.key)).toEqual([server.seen[0]!.key, server.seen[0]!.key]);
  });
  await withServer([json(503, { title: "busy", status: 503, detail: "later" }, { "Retry-After": "120" })], async (long) => {
    const error = await clientOf(long.url, 5_000)
      .sessions.create()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RecallError);
    expect(error).toMatchObject({ status: 503, retryAfter: "120" });
    expect(long.seen).toHaveLength(1);
  });
});
