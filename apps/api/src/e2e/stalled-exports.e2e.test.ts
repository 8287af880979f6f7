// Exports whose clients read the headers and then stop reading (#42): each holds its snapshot open while the server's
// socket buffers are full, on the exports' own pool. More of them than the API's pool has connections (11 > 10) leave
// another context's /profile, turns, /query and /readyz answering; one more export or import than a cap allows is a
// 429 naming the cap, with Retry-After; and a reader that takes nothing for RECALL_EXPORT_WRITE_TIMEOUT_MS is cut off,
// its slot and its snapshot's connection freed. Each stalled export's context holds one document of 6 MB, more than
// the kernel's socket buffers on loopback take (a few MB), so the server's write waits for a drain that never comes.
import http from "node:http";
import type { AddressInfo } from "node:net";
import request from "supertest";
import { waitFor } from "@recall/test-support";
import { startHarness, type Harness } from "../testing/harness";
import { contextClient, createContext, type ContextHandle } from "../testing/api-client";

const DOCUMENT_BYTES = 6 * 1024 * 1024;
const harnesses: Harness[] = [];
const servers: http.Server[] = [];
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  for (const h of harnesses) await h.close();
});

/** The API listening on a real port, so a client can stop reading its socket. */
async function serve(h: Harness): Promise<number> {
  const server = http.createServer(h.app);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

async function bigContext(h: Harness, name: string): Promise<ContextHandle> {
  const ctx = await createContext(h.app, name);
  await h.api.db.$executeRaw`
    INSERT INTO documents (id, context_id, text, content_hash, trace_id)
    VALUES (gen_random_uuid(), ${ctx.contextId}::uuid, repeat('x', ${DOCUMENT_BYTES}), 'stalled-export', 'stalled-export')`;
  return ctx;
}

interface Answer {
  status: number;
  retryAfter?: string;
  problem?: { type: string; status: number; detail: string };
  req: http.ClientRequest;
  res: http.IncomingMessage;
}

/** GET …/export: a 200 is left unread past its headers (Node stops reading the socket once its small buffer is full). */
function openExport(port: number, ctx: ContextHandle): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const path = `/api/v1/${ctx.contextId}/export`;
    const req = http.get({ host: "127.0.0.1", port, path, headers: { "API-KEY": ctx.apiKey }, agent: false }, (res) => {
      // The server cutting it (or the test closing it) ends it with an error this test expects.
      res.on("error", () => undefined);
      if (res.statusCode === 200) return resolve({ status: 200, req, res });
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () =>
        resolve({ status: res.statusCode!, retryAfter: res.headers["retry-after"], problem: JSON.parse(text), req, res }),
      );
    });
    req.on("error", reject);
  });
}

/** POST …/import whose body never comes: the import holds its slot while it waits for the first line. */
function hangingImport(port: number, ctx: ContextHandle): http.ClientRequest {
  const req = http.request({
    host: "127.0.0.1",
    port,
    method: "POST",
    path: `/api/v1/${ctx.contextId}/import`,
    headers: { "API-KEY": ctx.apiKey, "Content-Type": "application/x-ndjson", "Transfer-Encoding": "chunked" },
    agent: false,
  });
  req.on("error", () => undefined);
  req.flushHeaders();
  return req;
}

/** What a stalled client still gets once it reads again, and whether the response was whole. */
function readRest(res: http.IncomingMessage): Promise<{ text: string; complete: boolean }> {
  return new Promise((resolve) => {
    let text = "";
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => (text += chunk));
    res.on("close", () => resolve({ text, complete: res.complete }));
    res.resume();
  });
}

/** Backends of this test's database holding a transaction open while their client does something else. */
async function idleInTransaction(h: Harness): Promise<number> {
  const [row] = await h.api.db.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction'`;
  return row!.n;
}

function expectRefused(answer: { status: number; retryAfter?: string }, problem: string, body: unknown) {
  expect(answer.status).toBe(429);
  expect(Number(answer.retryAfter)).toBeGreaterThan(0);
  expect(body).toMatchObject({ type: `https://recall.dev/problems/${problem}`, status: 429 });
}

/** An import with an empty body, answered at once: refused before it reads a line, or with what an empty body gets. */
async function emptyImport(h: Harness, ctx: ContextHandle) {
  const res = await request(h.app)
    .post(`/api/v1/${ctx.contextId}/import`)
    .set("API-KEY", ctx.apiKey)
    .set("Content-Type", "application/x-ndjson")
    .send("");
  return { status: res.status, retryAfter: res.headers["retry-after"], body: res.body as unknown };
}

test("eleven stalled exports over two contexts leave another context served and /readyz ready; caps answer 429", async () => {
  const h = await startHarness({
    RECALL_EXPORT_CONCURRENCY: "11",
    RECALL_EXPORT_CONTEXT_CONCURRENCY: "6",
    RECALL_IMPORT_CONCURRENCY: "2",
    RECALL_IMPORT_CONTEXT_CONCURRENCY: "1",
    // Longer than this test: here the stalled exports must stay open (the next test cuts one).
    RECALL_EXPORT_WRITE_TIMEOUT_MS: "600000",
  });
  harnesses.push(h);
  const port = await serve(h);
  const [a, b] = [await bigContext(h, "stalled-a"), await bigContext(h, "stalled-b")];
  const otherCtx = await createContext(h.app, "other");
  const other = contextClient(h.app, otherCtx);
  const session = await other.session();

  const stalled: Answer[] = [];
  for (const ctx of [a, a, a, a, a, a, b, b, b, b, b]) stalled.push(await openExport(port, ctx));
  expect(stalled.map((s) => s.status)).toEqual(Array(11).fill(200));
  // Every one is inside its snapshot, waiting for its client: more than the API's pool has connections.
  await waitFor(async () => (await idleInTransaction(h)) >= 11, { what: "11 snapshots waiting on their clients" });
  expect(h.api.portability.running.exports).toBe(11);

  const aAgain = await openExport(port, a);
  expectRefused(aAgain, "too_many_context_exports", aAgain.problem);
  expect(aAgain.problem!.detail).toMatch(/RECALL_EXPORT_CONTEXT_CONCURRENCY/);
  const third = await openExport(port, await bigContext(h, "stalled-c"));
  expectRefused(third, "too_many_exports", third.problem);
  expect(third.problem!.detail).toMatch(/RECALL_EXPORT_CONCURRENCY/);

  expect((await other.get("/profile")).status).toBe(200);
  expect((await other.turn(session, "I'm Dana, and I run the Lisbon office.", [])).extraction.status).toBe("committed");
  expect((await other.post("/query", { query: "Lisbon" })).status).toBe(200);
  expect((await request(h.app).get("/readyz")).status).toBe(200);

  const importing = hangingImport(port, a);
  await waitFor(async () => h.api.portability.running.imports === 1, { what: "the first import to hold its slot" });
  const intoA = await emptyImport(h, a);
  expectRefused(intoA, "too_many_context_imports", intoA.body);
  const importingB = hangingImport(port, b);
  await waitFor(async () => h.api.portability.running.imports === 2, { what: "the second import to hold its slot" });
  const intoOther = await emptyImport(h, otherCtx);
  expectRefused(intoOther, "too_many_imports", intoOther.body);

  // The clients leave: every slot and snapshot is given back.
  for (const req of [importing, importingB, ...stalled.map((s) => s.req)]) req.destroy();
  await waitFor(async () => h.api.portability.running.exports + h.api.portability.running.imports === 0, { what: "every slot freed" });
  await waitFor(async () => (await idleInTransaction(h)) === 0, { what: "every snapshot ended" });
}, 180_000);

test("a reader that takes nothing for RECALL_EXPORT_WRITE_TIMEOUT_MS is cut off, and its slot and snapshot are freed", async () => {
  // No workers: nothing here is extracted. A second long enough for a reader that keeps reading to drain each page.
  const h = await startHarness({ RECALL_EXPORT_WRITE_TIMEOUT_MS: "1000", RECALL_EXPORT_CONTEXT_CONCURRENCY: "1" }, []);
  harnesses.push(h);
  const port = await serve(h);
  const ctx = await bigContext(h, "slow-reader");

  const slow = await openExport(port, ctx);
  expect(slow.status).toBe(200);
  await waitFor(async () => h.api.portability.running.exports === 0, { what: "the stalled export to be cut" });
  await waitFor(async () => (await idleInTransaction(h)) === 0, { what: "its snapshot to end" });
  const rest = await readRest(slow.res);
  expect(rest.complete).toBe(false);
  expect(rest.text.length).toBeLessThan(DOCUMENT_BYTES);
  expect(rest.text).not.toMatch(/"kind":"end"/);

  // The context's one slot is free again, and a reader that keeps reading gets the whole export.
  const whole = await request(h.app).get(`/api/v1/${ctx.contextId}/export`).set("API-KEY", ctx.apiKey);
  expect(whole.status).toBe(200);
  expect(whole.text.trim().split("\n").at(-1)).toMatch(/"kind":"end"/);
}, 120_000);
