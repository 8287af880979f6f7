// @recall/client's transport against the real service behind a proxy that refuses, holds or
// passes requests: 503/429 retried after Retry-After with one Idempotency-Key per call,
// bounded attempts, per-attempt timeouts and the caller's AbortSignal.
import { RecallClient, RecallError, RecallTimeoutError } from "@recall/client";
import { startFlakyProxy, type FlakyProxy, type SeenRequest } from "../testing/flaky-proxy";
import { listen, type Listening } from "../testing/listen";
import { ADMIN_KEY, startHarness, type Harness } from "../testing/harness";

let h: Harness;
let server: Listening;
let proxy: FlakyProxy;
let context: { contextId: string; apiKey: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

beforeAll(async () => {
  h = await startHarness();
  server = await listen(h.app);
  proxy = await startFlakyProxy(server.url);
  const created = await new RecallClient({ baseUrl: server.url, adminKey: ADMIN_KEY }).admin.contexts.create({ name: "flaky" });
  context = { contextId: created.context_id, apiKey: created.api_key };
});

afterAll(async () => {
  await proxy?.close();
  await server?.close();
  await h?.close();
});

beforeEach(() => proxy.plan(() => "forward"));

const client = (options: Partial<ConstructorParameters<typeof RecallClient>[0]> = {}) =>
  new RecallClient({ baseUrl: proxy.url, ...context, ...options });
const seenSince = (mark: number, method: string, suffix: string) =>
  proxy.seen.slice(mark).filter((r: SeenRequest) => r.method === method && r.path.split("?")[0]!.endsWith(suffix));

test("a 503 with Retry-After is retried after that wait with the same Idempotency-Key, and the turn is stored once", async () => {
  const recall = client();
  const { session_id } = await recall.sessions.create();
  const mark = proxy.seen.length;
  let refused = false;
  proxy.plan((r) => {
    if (r.method !== "POST" || !r.path.endsWith("/turns") || refused) return "forward";
    refused = true;
    return { status: 503, headers: { "retry-after": "1" } };
  });

  const turn = await recall.turns.post(session_id, { role: "user", content: "I'm Erin, CFO at Globex.", scope: ["org=globex"] });

  expect(turn.extraction.status).toBe("committed");
  const attempts = seenSince(mark, "POST", "/turns");
  expect(attempts).toHaveLength(2);
  const [first, second] = attempts.map((a) => a.headers["idempotency-key"]);
  expect(first).toMatch(UUID);
  expect(second).toBe(first);
  expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(950);
  expect((await recall.turns.list(session_id, { scope: { org: "globex" } })).turns).toHaveLength(1);
});

test("429s are retried with backoff up to the policy's attempts, then thrown as RecallError; reads carry no key", async () => {
  const recall = client({ retry: { maxAttempts: 3, baseDelayMs: 50 } });
  const mark = proxy.seen.length;
  proxy.plan(() => ({ status: 429, body: { type: "about:blank", title: "too many requests", status: 429, detail: "slow down" } }));

  const err = await recall.profile({ org: "acme" }).catch((e: unknown) => e);

  expect(err).toBeInstanceOf(RecallError);
  expect(err).toMatchObject({ status: 429, title: "too many requests", detail: "slow down", method: "GET" });
  const attempts = seenSince(mark, "GET", "/profile");
  expect(attempts).toHaveLength(3);
  expect(attempts.map((a) => a.headers["idempotency-key"])).toEqual([undefined, undefined, undefined]);
});

test("a Retry-After longer than the policy waits ends the retries at once", async () => {
  const mark = proxy.seen.length;
  proxy.plan(() => ({ status: 503, headers: { "retry-after": "120" } }));
  const err = await client()
    .sessions.create()
    .catch((e: unknown) => e);
  expect(err).toMatchObject({ name: "RecallError", status: 503, retryAfter: "120" });
  expect(seenSince(mark, "POST", "/sessions")).toHaveLength(1);
});

test("each call has its own key; a caller's own key is sent as given", async () => {
  const recall = client();
  const mark = proxy.seen.length;
  await recall.sessions.create();
  await recall.sessions.create();
  await recall.sessions.create({}, { idempotencyKey: "import-42" });
  const keys = seenSince(mark, "POST", "/sessions").map((a) => a.headers["idempotency-key"]);
  expect(keys).toHaveLength(3);
  expect(new Set(keys).size).toBe(3);
  expect(keys[2]).toBe("import-42");
});

test("an attempt without an answer within timeoutMs is abandoned with RecallTimeoutError, and a write is not resent", async () => {
  proxy.plan(() => ({ holdMs: 3_000 }));
  const started = Date.now();
  await expect(client({ timeoutMs: 300 }).profile({ org: "acme" })).rejects.toBeInstanceOf(RecallTimeoutError);
  expect(Date.now() - started).toBeLessThan(2_000);

  const mark = proxy.seen.length;
  const err = await client()
    .sessions.create({}, { timeoutMs: 200 })
    .catch((e: unknown) => e);
  expect(err).toMatchObject({ name: "RecallTimeoutError", timeoutMs: 200 });
  expect(seenSince(mark, "POST", "/sessions")).toHaveLength(1);
});

test("an AbortSignal ends the call while waiting for an answer and while waiting to retry", async () => {
  proxy.plan(() => ({ holdMs: 3_000 }));
  const waiting = new AbortController();
  setTimeout(() => waiting.abort(), 100);
  await expect(client().profile({ org: "acme" }, {}, { signal: waiting.signal })).rejects.toMatchObject({ name: "AbortError" });

  const mark = proxy.seen.length;
  proxy.plan(() => ({ status: 503, headers: { "retry-after": "10" } }));
  const backingOff = new AbortController();
  setTimeout(() => backingOff.abort(), 200);
  const started = Date.now();
  await expect(client().sessions.create({}, { signal: backingOff.signal })).rejects.toMatchObject({ name: "AbortError" });
  expect(Date.now() - started).toBeLessThan(2_000);
  expect(seenSince(mark, "POST", "/sessions")).toHaveLength(1);
});
