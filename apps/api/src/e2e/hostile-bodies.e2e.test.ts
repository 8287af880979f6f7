// Bodies built to hold the process, sent over real sockets to the server app with its default caps
// (the fuzz runs with a 64 KiB cap, too small for these): a million tiny items, a declared
// Content-Length far over the cap, a chunked body that never ends, nesting 100,000 deep, thousands of
// invalid items. Each must be a small problem+json answer, never a body read to its end; the times
// are in docs/performance.md (no test here asserts a duration).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createServerApp } from "../server-app";
import { answerClientErrors } from "../http/http-client-errors";
import { registeredRoutes } from "../http/route-inventory";
import { MAX_JSON_ARRAY_ITEMS } from "../http/request-guards";
import { MAX_REPORTED_ISSUES } from "../http/errors";
import { ADMIN_KEY, startHarness, type Harness } from "../testing/harness";
import { createContext, type ContextHandle } from "../testing/api-client";

/** A problem answer a client can afford to read, whatever it was sent. */
const SMALL_ANSWER_BYTES = 16 * 1024;

let h: Harness;
let server: http.Server;
let port: number;
let ctx: ContextHandle;

beforeAll(async () => {
  h = await startHarness({ TURN_TIMEOUT_MS: "100" }, []);
  server = http.createServer(createServerApp(h.api));
  answerClientErrors(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  ctx = await createContext(h.app, "hostile-bodies");
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await h?.close();
});

/** Every route Express serves that takes a body, as a URL with its credentials; POST …/import reads NDJSON with its own cap. */
function bodyRoutes(): { route: string; url: string; headers: Record<string, string> }[] {
  return registeredRoutes(h.app)
    .filter(({ method, path }) => method === "post" && !path.endsWith("/import"))
    .map(({ method, path }) => ({
      route: `${method.toUpperCase()} ${path}`,
      url: path.replace(/\{(\w+)\}/g, (_m, name: string) => (name === "contextId" ? ctx.contextId : crypto.randomUUID())),
      headers: (/^\/api\/v1\/(contexts|admin)(\/|$)/.test(path)
        ? { authorization: `Bearer ${ADMIN_KEY}` }
        : { "api-key": ctx.apiKey }) as Record<string, string>,
    }));
}

interface Answer {
  status: number;
  contentType: string;
  connection: string;
  text: string;
}

/**
 * Sends the headers, then `body` (whole, or as `chunks()` until the server answers), and resolves on the
 * answer: a declared length is never sent, so an answer proves the server did not wait for it.
 */
function send(url: string, headers: Record<string, string>, body?: Buffer | { chunks: () => Buffer }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path: url, method: "POST", agent: false, headers }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        req.destroy();
        resolve({
          status: res.statusCode ?? 0,
          contentType: String(res.headers["content-type"] ?? ""),
          connection: String(res.headers.connection ?? ""),
          text: Buffer.concat(chunks).toString(),
        });
      });
    });
    let answered = false;
    // A write refused because the server answered and closed is expected; the answer is what is checked.
    req.on("error", (err) => (answered ? undefined : reject(err)));
    if (Buffer.isBuffer(body)) return void req.end(body);
    req.flushHeaders();
    if (!body) return;
    const pump = () => {
      if (!answered && !req.destroyed) req.write(body.chunks(), () => setImmediate(pump));
    };
    pump();
  });
}

const json = { "content-type": "application/json" };
/** What every refusal here must be: the status, problem+json, small, naming `field`. */
function refusal(answer: Answer) {
  const problem = answer.contentType.startsWith("application/problem+json")
    ? (JSON.parse(answer.text) as { errors?: { field: string }[] })
    : undefined;
  return {
    status: answer.status,
    problemJson: problem !== undefined,
    small: answer.text.length < SMALL_ANSWER_BYTES,
    field: problem?.errors?.[0]?.field,
  };
}

test("a million tiny items in one array is a small 400 naming the array, on every route that takes a body", async () => {
  const body = Buffer.from(JSON.stringify({ items: Array.from({ length: 1_000_000 }, () => ({})) }));
  const wrong: string[] = [];
  const routes = bodyRoutes();
  for (const { route, url, headers } of routes) {
    const answer = refusal(await send(url, { ...headers, ...json }, body));
    const expected = { status: 400, problemJson: true, small: true, field: "body.items" };
    if (JSON.stringify(answer) !== JSON.stringify(expected)) wrong.push(`${route}: ${JSON.stringify(answer)}`);
  }
  expect(wrong).toEqual([]);
  expect(routes.length).toBeGreaterThan(20);
  // Without credentials too: the body is bounded before authentication.
  const anonymous = await send(`/api/v1/${ctx.contextId}/facts`, json, body);
  expect(refusal(anonymous)).toEqual({ status: 400, problemJson: true, small: true, field: "body.items" });
});

test(`an array of ${MAX_JSON_ARRAY_ITEMS} invalid items is validated no further than its first, and names at most ${MAX_REPORTED_ISSUES} issues`, async () => {
  const facts = `/api/v1/${ctx.contextId}/facts`;
  const large = await send(
    facts,
    { "api-key": ctx.apiKey, ...json },
    Buffer.from(JSON.stringify({ attributes: Array(MAX_JSON_ARRAY_ITEMS).fill({}) })),
  );
  expect(refusal(large)).toEqual({ status: 400, problemJson: true, small: true, field: "body.attributes.0.entity" });
  const few = await send(facts, { "api-key": ctx.apiKey, ...json }, Buffer.from(JSON.stringify({ attributes: Array(30).fill({}) })));
  const problem = JSON.parse(few.text) as { detail: string; errors: unknown[] };
  expect({ status: few.status, errors: problem.errors.length, more: /; and \d+ more$/.test(problem.detail) }).toEqual({
    status: 400,
    errors: MAX_REPORTED_ISSUES,
    more: true,
  });
});

test("a Content-Length over the cap is 413 before the body is sent, on every route, and the connection is closed", async () => {
  const wrong: string[] = [];
  for (const { route, url, headers } of bodyRoutes()) {
    const answer = await send(url, { ...headers, ...json, "content-length": String(2 * 1024 ** 3) });
    const seen = { ...refusal(answer), connection: answer.connection };
    const expected = { status: 413, problemJson: true, small: true, field: "body", connection: "close" };
    if (JSON.stringify(seen) !== JSON.stringify(expected)) wrong.push(`${route}: ${JSON.stringify(seen)}`);
  }
  expect(wrong).toEqual([]);
  // 7 MB, over REQUEST_BODY_LIMIT_BYTES (6 MiB): unauthenticated, and on a route that needs no credentials at all.
  const sevenMb = { ...json, "content-length": String(7 * 1024 * 1024) };
  const unauthenticated = await send(`/api/v1/${ctx.contextId}/facts`, sevenMb);
  const contexts = await send("/api/v1/contexts", sevenMb);
  const document = await send(`/api/v1/${ctx.contextId}/documents`, {
    "api-key": ctx.apiKey,
    "content-type": "text/plain",
    "content-length": String(h.config.RECALL_DOCUMENT_MAX_BYTES * 2),
  });
  expect([unauthenticated, contexts, document].map((a) => refusal(a).status)).toEqual([413, 413, 413]);
  expect(JSON.parse(contexts.text).detail).toContain("(REQUEST_BODY_LIMIT_BYTES)");
});

test("a chunked body is 413 as soon as it passes the cap, not read on to its end", async () => {
  const chunk = Buffer.alloc(256 * 1024, " ");
  // The sender never ends: only the server's answer stops it.
  const endless = { chunks: () => chunk };
  const facts = await send(`/api/v1/${ctx.contextId}/facts`, { "api-key": ctx.apiKey, ...json }, endless);
  const multipart = await send(
    `/api/v1/${ctx.contextId}/documents`,
    { "api-key": ctx.apiKey, "content-type": "multipart/form-data; boundary=x" },
    endless,
  );
  const raw = await send(`/api/v1/${ctx.contextId}/documents`, { "api-key": ctx.apiKey, "content-type": "text/plain" }, endless);
  expect([facts, multipart, raw].map((a) => ({ ...refusal(a), connection: a.connection }))).toEqual(
    Array(3).fill({ status: 413, problemJson: true, small: true, field: "body", connection: "close" }),
  );
});

test("nesting 100,000 deep is a small 400 naming the body, before authentication", async () => {
  const deep = Buffer.from(`{"scope":${"[".repeat(100_000)}${"]".repeat(100_000)}}`);
  const answer = await send(`/api/v1/${ctx.contextId}/query`, json, deep);
  expect(refusal(answer)).toEqual({ status: 400, problemJson: true, small: true, field: "body" });
  expect(answer.text).toMatch(/deeper than 64 levels/);
});
