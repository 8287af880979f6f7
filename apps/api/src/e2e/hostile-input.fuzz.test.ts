// Hostile input, property-based: ten thousand malformed requests drawn by fast-check across every
// declared route (and the MCP endpoint and queue dashboard beside them), sent over real HTTP to the
// server app on real Postgres and Redis. None may answer 5xx; every 4xx of the API must be
// problem+json whose detail (and, for 400, `errors`) names what is wrong.
import http from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import request from "supertest";
import { createServerApp } from "../server-app";
import { routeGroups } from "../app";
import { answerClientErrors } from "../http/http-client-errors";
import { openApiPath } from "../http/route-definition";
import { auditExactlyOnce } from "@recall/test-support";
import { ADMIN_KEY, startHarness, type Harness } from "../testing/harness";
import { contextClient, createContext, type ContextHandle } from "../testing/api-client";
import {
  FORGED_CURSORS,
  SAMPLES,
  arbitraryRequest,
  replaceAt,
  stringPaths,
  type FuzzIds,
  type FuzzRequest,
  type FuzzTarget,
} from "../testing/hostile-requests";

const RUNS = 6_000;
const PARALLEL = 12;
const BODY_LIMIT = 64 * 1024;

let h: Harness;
let server: http.Server;
let base: string;
let ids: FuzzIds;
const agent = new http.Agent({ keepAlive: true, maxSockets: PARALLEL });

beforeAll(async () => {
  // No workers: accepted input just waits in its queue, and a turn answers 202 after 100 ms.
  h = await startHarness({ REQUEST_BODY_LIMIT_BYTES: String(BODY_LIMIT), TURN_TIMEOUT_MS: "100" }, []);
  server = http.createServer(createServerApp(h.api));
  answerClientErrors(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  ids = await seedIds();
});

afterAll(async () => {
  agent.destroy();
  await new Promise((resolve) => server?.close(resolve));
  await h?.close();
});

/** Real ids for path parameters, so a share of requests gets past "not found" into validation. */
async function seedIds(): Promise<FuzzIds> {
  const ctx: ContextHandle = await createContext(h.app, "fuzz");
  const other = await createContext(h.app, "fuzz-other");
  const doomed = await createContext(h.app, "fuzz-doomed");
  const client = contextClient(h.app, ctx);
  const sessionId = await client.session();
  const document = await client.post("/documents", { text: "Osprey is the ledger." });
  const facts = await client.post("/facts", { entities: [{ name: "Osprey", type: "component", memory_category: "knowledge" }] });
  // Keys routes may revoke what they are given: they get a spare key, never the one the fuzz uses.
  const spare = await request(h.app).post(`/api/v1/contexts/${ctx.contextId}/keys`).set("Authorization", `Bearer ${ADMIN_KEY}`).send({});
  const workItem = await h.api.db.workItem.findFirstOrThrow({ where: { contextId: ctx.contextId } });
  return {
    contextId: ctx.contextId,
    apiKey: ctx.apiKey,
    otherContextId: other.contextId,
    otherApiKey: other.apiKey,
    doomedContextId: doomed.contextId,
    adminKey: ADMIN_KEY,
    byParam: {
      sessionId,
      documentId: document.body.document_id,
      factWriteId: facts.body.fact_write_id,
      factId: facts.body.committed.entity_ids[0],
      entityId: facts.body.committed.entity_ids[0],
      turnId: crypto.randomUUID(),
      workItemId: workItem.id,
      keyId: spare.body.key_id,
    },
  };
}

function targets(): FuzzTarget[] {
  const declared = routeGroups(h.api).flatMap((group) =>
    group.routes.map((route) => ({
      method: route.method.toUpperCase(),
      path: openApiPath(group.prefix, route.path),
      auth: group.auth,
      hasBody: route.method !== "get",
      problemJson: true,
    })),
  );
  const beside: FuzzTarget[] = [
    { method: "POST", path: "/api/v1/{contextId}/mcp", auth: "api_key", hasBody: true, problemJson: false },
    { method: "POST", path: "/api/v1/admin/mcp", auth: "admin", hasBody: true, problemJson: false },
    { method: "GET", path: "/admin/queues", auth: "admin", hasBody: false, problemJson: false },
    // The dashboard's JSON: its 401 is plain text (the browser's password prompt), its 4xx problems.
    ...["/admin/search.json", "/admin/work-items.json", "/admin/work-items/{workItemId}/detail.json", "/admin/spend.json"].map((path) => ({
      method: "GET",
      path,
      auth: "admin" as const,
      hasBody: false,
      problemJson: false,
    })),
  ];
  return [...declared, ...beside];
}

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

function send(req: FuzzRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    // Content-Length always: Node frames no body of a DELETE or GET otherwise.
    const headers = { ...req.headers, "content-length": String(req.body?.length ?? 0) };
    const out = http.request(`${base}${req.path}`, { method: req.method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: String(res.headers["content-type"] ?? ""),
          text: Buffer.concat(chunks).toString(),
        }),
      );
    });
    out.on("error", reject);
    out.end(req.body);
  });
}

/** What is wrong with an answer, or undefined when it is a fair answer to a bad request. */
function fault(req: FuzzRequest, answer: Answer): string | undefined {
  // This harness runs no workers, so readiness is honestly 503 (its `workers` check); that is an answer, not a fault.
  if (answer.status === 503 && req.path.split("?")[0] === "/readyz" && answer.text.includes('"not_ready"')) return undefined;
  if (answer.status >= 500) return `answered ${answer.status}: ${answer.text.slice(0, 300)}`;
  if (/\n\s+at .+\(.+:\d+:\d+\)/.test(answer.text)) return "a stack trace in the body";
  if (answer.status < 400 || !req.target.problemJson) return undefined;
  if (!answer.contentType.startsWith("application/problem+json")) return `${answer.status} as ${answer.contentType}`;
  const problem = JSON.parse(answer.text) as { status?: number; title?: string; detail?: string; errors?: { field?: string }[] };
  if (problem.status !== answer.status || !problem.title || !problem.detail) return `problem without status/title/detail: ${answer.text}`;
  if (answer.status === 400 && !(problem.errors?.length && problem.errors.every((e) => e.field)))
    return `400 naming no field: ${answer.text}`;
  return undefined;
}

test(`${RUNS.toLocaleString("en")} malformed requests across every route: no 5xx, every 4xx a problem naming the fault`, async () => {
  const seed = Date.now();
  const requests = fc.sample(arbitraryRequest(targets(), ids, BODY_LIMIT), { numRuns: RUNS, seed });
  const faults: string[] = [];
  const statuses = new Map<number, number>();
  for (let i = 0; i < requests.length; i += PARALLEL) {
    const batch = requests.slice(i, i + PARALLEL);
    const answers = await Promise.all(batch.map(send));
    batch.forEach((req, j) => {
      const answer = answers[j]!;
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      const wrong = fault(req, answer);
      if (wrong && faults.length < 20) faults.push(`${req.method} ${req.path.slice(0, 200)} [${req.label}]: ${wrong}`);
      if (answer.status >= 200 && answer.status < 300) noteAccepted(answer.text);
    });
  }
  expect({ seed, faults }).toEqual({ seed, faults: [] });
  // The run reached past authentication into validation and the handlers, not only 401s.
  expect(statuses.get(400) ?? 0).toBeGreaterThan(RUNS / 4);
  expect([...statuses.keys()].filter((s) => s < 300).length).toBeGreaterThan(0);
  // About a minute on two idle cores; the bound leaves room for a machine shared with other work.
}, 900_000);

/** Ids of what the run's 2xx answers say was stored, checked against Postgres afterwards. */
const accepted = {
  turn_id: new Set<string>(),
  document_id: new Set<string>(),
  fact_write_id: new Set<string>(),
  session_id: new Set<string>(),
};

function noteAccepted(text: string): void {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return;
  }
  if (!body || typeof body !== "object") return;
  for (const [field, ids] of Object.entries(accepted)) {
    const id = (body as Record<string, unknown>)[field];
    if (typeof id === "string") ids.add(id);
  }
}

test("after the run, Postgres holds every accepted input once, no orphaned candidate and nothing stuck running", async () => {
  const db = h.api.db;
  const found = async (ids: Set<string>, count: (ids: string[]) => Promise<number>) => [ids.size, await count([...ids])];
  expect({
    turns: await found(accepted.turn_id, (ids) => db.turn.count({ where: { id: { in: ids } } })),
    documents: await found(accepted.document_id, (ids) => db.document.count({ where: { id: { in: ids } } })),
    factWrites: await found(accepted.fact_write_id, (ids) => db.factWrite.count({ where: { id: { in: ids } } })),
    sessions: await found(accepted.session_id, (ids) => db.session.count({ where: { id: { in: ids } } })),
  }).toEqual({
    turns: [accepted.turn_id.size, accepted.turn_id.size],
    documents: [accepted.document_id.size, accepted.document_id.size],
    factWrites: [accepted.fact_write_id.size, accepted.fact_write_id.size],
    sessions: [accepted.session_id.size, accepted.session_id.size],
  });
  // Only the doomed context is erased or reconfigured: the other one, where the run may have stored a session, stays.
  expect(await db.context.count({ where: { id: { in: [ids.contextId, ids.otherContextId] } } })).toBe(2);
  const audit = await auditExactlyOnce(db, ids.contextId);
  expect({ assertions: audit.duplicateAssertions, outbox: audit.duplicateOutbox, twice: audit.itemsSucceededTwice }).toEqual({
    assertions: [],
    outbox: [],
    twice: [],
  });
  // No workers run here: extraction waits in its queue; direct writes commit in the request.
  expect(await db.workItem.count({ where: { status: "running" } })).toBe(0);
  const orphaned = await db.$queryRaw<{ n: bigint }[]>`
    SELECT count(*) AS n FROM knowledge_candidates c
    JOIN work_items w ON w.subject_id = c.subject_id AND w.queue = 'commit_artifacts' AND w.status = 'succeeded'
    WHERE c.status = 'valid' AND NOT EXISTS (SELECT 1 FROM retractions r WHERE r.source_id = c.subject_id)`;
  expect(Number(orphaned[0]!.n)).toBe(0);
});

describe("each kind of hostile input, by name", () => {
  const post = (path: string) => request(h.app).post(`/api/v1/${ids.contextId}${path}`).set("API-KEY", ids.apiKey);
  /** Over the socket as bytes: supertest would serialise a Buffer as JSON. */
  const raw = async (path: string, bytes: Buffer) => {
    const headers = { "api-key": ids.apiKey, "content-type": "application/json" };
    const target = { method: "POST", path, auth: "api_key", hasBody: true, problemJson: true } as const;
    const answer = await send({ target, method: "POST", path: `/api/v1/${ids.contextId}${path}`, headers, body: bytes, label: "" });
    return { status: answer.status, type: answer.contentType.split(";")[0] ?? "", body: JSON.parse(answer.text) };
  };
  const documents = () => h.api.db.document.count({ where: { contextId: ids.contextId } });
  const problemOf = (res: { status: number; type: string; body: { errors?: { field: string }[] } }) => ({
    status: res.status,
    type: res.type,
    fields: res.body.errors?.map((e: { field: string }) => e.field),
  });

  test("a body over REQUEST_BODY_LIMIT_BYTES is 413, naming the limit", async () => {
    // Documents have their own, larger limit (RECALL_DOCUMENT_MAX_BYTES); every other body has this one.
    const res = await post("/facts").send({ scope: [], pad: "a".repeat(BODY_LIMIT) });
    expect(problemOf(res)).toEqual({ status: 413, type: "application/problem+json", fields: ["body"] });
    expect(res.body.detail).toContain(`${BODY_LIMIT} bytes (REQUEST_BODY_LIMIT_BYTES)`);
  });

  test("bytes that are not UTF-8 are 400 and store nothing", async () => {
    const before = await documents();
    const res = await raw("/documents", Buffer.concat([Buffer.from('{"text":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]));
    expect(problemOf(res)).toEqual({ status: 400, type: "application/problem+json", fields: ["body"] });
    expect(res.body.detail).toMatch(/not valid UTF-8/);
    expect(await documents()).toBe(before);
  });

  test("nesting deeper than the limit is 400", async () => {
    const res = await raw("/documents", Buffer.from(`{"text":"x","metadata":${'{"a":'.repeat(5_000)}1${"}".repeat(5_000)}}`));
    expect(problemOf(res)).toEqual({ status: 400, type: "application/problem+json", fields: ["body"] });
    expect(res.body.detail).toMatch(/deeper than 64 levels/);
  });

  test("NUL characters are 400 naming where they are, in a body, a key or a query", async () => {
    const sessionId = ids.byParam.sessionId!;
    const content = await post(`/sessions/${sessionId}/turns`).send({ role: "user", content: "hi\u0000there" });
    const key = await post("/documents").send({ text: "x", metadata: { "a\u0000": 1 } });
    const query = await request(h.app).get(`/api/v1/${ids.contextId}/profile?scope[org]=ac%00me`).set("API-KEY", ids.apiKey);
    expect([content, key, query].map(problemOf)).toEqual([
      { status: 400, type: "application/problem+json", fields: ["body.content"] },
      { status: 400, type: "application/problem+json", fields: ["body.metadata.a\u0000"] },
      { status: 400, type: "application/problem+json", fields: ["query.scope.org"] },
    ]);
  });

  test("huge scope lists are 400 naming the scope, as a list, an object or a query", async () => {
    const list = await post("/query").send({ query: "x", scope: Array.from({ length: 3_000 }, (_, i) => `k${i}=v`) });
    const object = await post("/documents").send({
      text: "x",
      scope: Object.fromEntries(Array.from({ length: 1_000 }, (_, i) => [`k${i}`, "v"])),
    });
    const query = await request(h.app)
      .get(`/api/v1/${ids.contextId}/profile?${Array.from({ length: 500 }, (_, i) => `scope[k${i}]=v`).join("&")}`)
      .set("API-KEY", ids.apiKey);
    expect(problemOf(list)).toEqual({ status: 400, type: "application/problem+json", fields: ["body.scope"] });
    expect(problemOf(object)).toEqual({ status: 400, type: "application/problem+json", fields: ["body.scope"] });
    expect(problemOf(query)).toEqual({ status: 400, type: "application/problem+json", fields: ["query.scope"] });
  });

  test("a direct write over RECALL_FACT_WRITE_MAX_ITEMS is 400 naming the section, and stores nothing", async () => {
    const writes = () => h.api.db.factWrite.count({ where: { contextId: ids.contextId } });
    const before = await writes();
    const attributes = Array.from({ length: h.config.RECALL_FACT_WRITE_MAX_ITEMS + 1 }, (_, i) => ({
      entity: `E${i}`,
      key: "k",
      value: "v",
      memory_category: "knowledge",
    }));
    const res = await post("/facts").send({ scope: [], attributes });
    expect(problemOf(res)).toEqual({ status: 400, type: "application/problem+json", fields: ["body.attributes"] });
    expect(await writes()).toBe(before);
  });

  test("unknown fields are 400 naming them; a body that is not JSON is 415", async () => {
    const unknown = await post("/facts").send({ scope: [], occured_at: "2025-01-01", valid_form: "x" });
    expect(problemOf(unknown)).toEqual({
      status: 400,
      type: "application/problem+json",
      fields: ["body.occured_at", "body.valid_form"],
    });
    expect(unknown.body.detail).toMatch(/body\.occured_at: unknown field/);
    const plain = await post("/facts").set("Content-Type", "text/plain").send('{"scope":[]}');
    expect(problemOf(plain)).toEqual({ status: 415, type: "application/problem+json", fields: ["header.Content-Type"] });
  });

  /** A route template with the seeded ids filled in, sent with the credentials its prefix needs. */
  const authed = (method: string, template: string, body?: object) => {
    const path = template.replace(/\{(\w+)\}/g, (_m, name: string) =>
      name === "contextId" ? ids.contextId : (ids.byParam[name] ?? crypto.randomUUID()),
    );
    const req = request(h.app)[method.toLowerCase() as "get" | "post"](path);
    const admin = path.startsWith("/api/v1/contexts") || path.startsWith("/api/v1/admin");
    const withAuth = admin ? req.set("Authorization", `Bearer ${ADMIN_KEY}`) : req.set("API-KEY", ids.apiKey);
    return body === undefined ? withAuth : withAuth.send(body);
  };
  const stored = async () => {
    const db = h.api.db;
    const [contexts, sessions, turns, documents, factWrites] = await Promise.all([
      db.context.count(),
      db.session.count(),
      db.turn.count(),
      db.document.count(),
      db.factWrite.count(),
    ]);
    return { contexts, sessions, turns, documents, factWrites };
  };

  test("a lone surrogate in any string field of any body is 400 naming that field, and stores nothing", async () => {
    const before = await stored();
    const routes: [string, object][] = [...Object.entries(SAMPLES), ["POST /api/v1/{contextId}/turns/{turnId}/retract", { reason: "x" }]];
    const wrong: string[] = [];
    for (const [route, sample] of routes) {
      const [method, template] = route.split(" ") as [string, string];
      for (const path of stringPaths(sample)) {
        const res = await authed(method, template, replaceAt(sample, path, "caf\ud800"));
        const field = `body.${path.join(".")}`;
        // The MCP endpoint answers in JSON-RPC, not problem+json: its status is what is checked there.
        const named = template.endsWith("/mcp") || res.body.errors?.[0]?.field === field;
        if (res.status !== 400 || !named) wrong.push(`${route} ${field}: ${res.status} ${res.text.slice(0, 200)}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(await stored()).toEqual(before);
  });

  test("a forged cursor on every paged route is 400 'not a cursor this API issued', never a database error", async () => {
    const paged: [method: string, template: string, where: "query" | "body"][] = [
      ["GET", "/api/v1/{contextId}/profile", "query"],
      ["POST", "/api/v1/{contextId}/state", "body"],
      ["GET", "/api/v1/{contextId}/instructions", "query"],
      ["GET", "/api/v1/{contextId}/sessions/{sessionId}/turns", "query"],
      ["GET", "/api/v1/{contextId}/work-items", "query"],
      ["GET", "/api/v1/admin/work-items", "query"],
      ["GET", "/api/v1/contexts/{contextId}/keys", "query"],
      ["GET", "/api/v1/{contextId}/entities/{entityId}/history", "query"],
    ];
    const wrong: string[] = [];
    // The first, {k: 5}, is a position a list ordered by sequence number could issue: the turns list takes it.
    for (const [method, template, where] of paged) {
      for (const cursor of FORGED_CURSORS.filter((c) => !(template.endsWith("/turns") && c === FORGED_CURSORS[0]))) {
        const res =
          where === "query" ? await authed(method, `${template}?cursor=${cursor}`) : await authed(method, template, { scope: [], cursor });
        const ok = res.status === 400 && res.body.errors?.[0]?.field === `${where}.cursor` && /not a cursor this API issued/.test(res.text);
        if (!ok)
          wrong.push(`${method} ${template} ${Buffer.from(cursor, "base64url").toString()}: ${res.status} ${res.text.slice(0, 200)}`);
      }
    }
    expect(wrong).toEqual([]);
    // A list ordered by sequence number refuses a timestamp position, though it is one the API could issue elsewhere.
    const timeCursor = Buffer.from(JSON.stringify({ k: new Date().toISOString(), id: crypto.randomUUID() })).toString("base64url");
    const turns = await authed("GET", `/api/v1/{contextId}/sessions/{sessionId}/turns?cursor=${timeCursor}`);
    expect(turns.status).toBe(400);
    expect((await authed("GET", `/api/v1/{contextId}/profile?cursor=${timeCursor}`)).status).toBe(200);
  });
});
