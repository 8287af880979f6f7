// The operators' dashboard: its JSON (search by any id, the filtered and paged work-item list, an
// item's page, bulk retry with a dry run, cancel, spend per context, and the 400s naming the field),
// and the page in headless Chromium (Debian's `chromium`, driven by playwright-core; never a
// browser download): an operator finds a failed turn by its id, opens its item and reads its
// attempts; and retries a failed turn and, without reloading, sees every stage succeed. The review queue (review
// before commit): held candidates across contexts, approved (as they are or edited) or rejected from the page.
import { existsSync, mkdirSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import request from "supertest";
import type { Browser } from "playwright-core";
import { startFakeLlmServer, waitFor, type FakeLlmServer } from "@recall/test-support";
import { createServerApp } from "../../server-app";
import { contextClient, createContext } from "../../testing/api-client";
import { browserTestFor, launchChromium } from "../../testing/browser";
import { ADMIN_KEY, startHarness, type Harness } from "../../testing/harness";

const SCREENSHOTS = path.resolve(__dirname, "../../../../../.data/screenshots");
const browserTest = browserTestFor("dashboard e2e");
const TRACE_UI = "http://traces.example/trace/{trace_id}";
const EMPTY_DIFF = { json: { entities: [], attributes: [], relations: [], instructions: [], revocations: [], uncertainties: [] } };

let h: Harness;
let llm: FakeLlmServer;
let server: Server;
let baseUrl: string;
let browser: Browser | undefined;

beforeAll(async () => {
  llm = await startFakeLlmServer();
  h = await startHarness({
    RECALL_FAST_MODEL: "openai-compatible:llama3:8b",
    OPENAI_API_KEY: "test-openai-key",
    OPENAI_BASE_URL: llm.openaiBaseUrl,
    LLM_TIMEOUT_MS: "5000",
    RECALL_MODEL_PRICES_JSON: JSON.stringify({ "openai-compatible:llama3:8b": "1/2" }),
    RECALL_TRACE_URL_TEMPLATE: TRACE_UI,
  });
  const app = createServerApp(h.api);
  server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await h?.close();
  await llm?.close();
});

test("the dashboard and its data need the admin key", async () => {
  const app = createServerApp(h.api);
  expect((await request(app).get("/admin")).status).toBe(401);
  expect((await request(app).get("/admin/overview.json").auth("x", "wrong")).status).toBe(401);
  const ok = await request(app).get("/admin/overview.json").auth("ops", ADMIN_KEY);
  expect(ok.status).toBe(200);
  expect(ok.body.queues.map((q: { queue: string }) => q.queue)).toContain("extract_assertions");
});

test("a retry must come from the dashboard's own page, and a malformed id is 400 naming it", async () => {
  const app = createServerApp(h.api);
  const item = await h.api.db.workItem.create({
    data: {
      contextId: crypto.randomUUID(),
      queue: "commit_artifacts",
      subjectType: "turn",
      subjectId: crypto.randomUUID(),
      traceId: "t",
      maxAttempts: 1,
    },
  });
  const retry = (id: string) => request(app).post(`/admin/work-items/${id}/retry`).auth("ops", ADMIN_KEY);
  const crossSite = await retry(item.id).set("Sec-Fetch-Site", "cross-site").set("Origin", "https://evil.example");
  const foreignOrigin = await retry(item.id).set("Origin", "https://evil.example");
  const basicWithoutOrigin = await retry(item.id);
  for (const res of [crossSite, foreignOrigin, basicWithoutOrigin]) {
    expect({ status: res.status, type: res.type }).toEqual({ status: 403, type: "application/problem+json" });
  }
  // The page's own fetch (same origin), and a script with the Bearer key, get through to the retry rules.
  const host = new URL(baseUrl).host;
  const samePage = await retry(item.id).set("Sec-Fetch-Site", "same-origin").set("Origin", baseUrl).set("Host", host);
  const script = await request(app).post(`/admin/work-items/${item.id}/retry`).set("Authorization", `Bearer ${ADMIN_KEY}`);
  expect([samePage.status, script.status]).toEqual([409, 409]); // queued, so not retryable: the guard let them through
  const malformed = await retry("not-a-uuid").set("Sec-Fetch-Site", "same-origin");
  expect({ status: malformed.status, type: malformed.type, field: malformed.body.errors?.[0]?.field }).toEqual({
    status: 400,
    type: "application/problem+json",
    field: "path.workItemId",
  });
  await h.api.db.workItem.delete({ where: { id: item.id } });
});

const admin = () => request(createServerApp(h.api));
const adminGet = (path: string) => admin().get(path).auth("ops", ADMIN_KEY);
/** What the dashboard's own page sends: Basic credentials and its own origin. */
const adminPost = (path: string, body?: object) =>
  admin().post(path).auth("ops", ADMIN_KEY).set("Sec-Fetch-Site", "same-origin").send(body);

/** A turn whose extraction the (fake) provider refused: dead after one attempt of class provider. */
async function failedTurn(name: string) {
  const ctx = await createContext(h.app, name);
  const api = contextClient(h.app, ctx);
  const session = await api.session();
  llm.script({ status: 401, message: "invalid key" });
  const turn = await api.turn(session, "Priya's team owns the payments gateway, which runs on Kubernetes.", []);
  expect(turn.extraction).toMatchObject({ status: "failed", error_class: "provider" });
  const workItemId = turn.extraction.work_item_id!;
  return { ctx, session, turn, workItemId };
}

/** Work items written straight into the table (a context's failed work, without running anything). */
async function seedItems(
  contextId: string,
  n: number,
  data: { queue: string; status: "failed" | "dead"; errorClass: "budget" | "provider" },
) {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const item = await h.api.db.workItem.create({
      data: {
        contextId,
        subjectType: "document",
        subjectId: crypto.randomUUID(),
        traceId: "0".repeat(32),
        maxAttempts: 1,
        attempts: 1,
        errorMessage: "seeded",
        createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
        ...data,
      },
    });
    ids.push(item.id);
  }
  return ids;
}

test("search finds a turn's input with its work items and each item's attempts, by every id it has", async () => {
  const { ctx, session, turn, workItemId } = await failedTurn("search");
  const byTurn = await adminGet(`/admin/search.json?q=${turn.turn_id}`);
  expect(byTurn.status).toBe(200);
  expect(byTurn.body.matched).toEqual([{ type: "turn", id: turn.turn_id }]);
  expect(byTurn.body.inputs).toHaveLength(1);
  const input = byTurn.body.inputs[0];
  expect(input).toMatchObject({
    subject_type: "turn",
    subject_id: turn.turn_id,
    context_id: ctx.contextId,
    context_name: "search",
    session_id: session,
  });
  expect(input.trace_url).toBe(TRACE_UI.replace("{trace_id}", input.trace_id));
  const extract = input.work_items.find((w: { queue: string }) => w.queue === "extract_assertions");
  expect(extract).toMatchObject({ work_item_id: workItemId, status: "dead", attempts: 1 });
  expect(extract.attempt_records).toEqual([
    expect.objectContaining({ attempt: 1, status: "dead", error: { class: "provider", message: expect.stringContaining("401") } }),
  ]);
  const [attempt] = extract.attempt_records;
  expect(typeof attempt.wall_ms).toBe("number");
  expect(typeof attempt.tokens_used).toBe("number");
  expect(attempt.trace_url).toBe(TRACE_UI.replace("{trace_id}", attempt.trace_id));

  // The same input behind its session, its context, its work item and its trace id (any case, padded).
  const byEveryId: [q: string, type: string][] = [
    [session, "session"],
    [ctx.contextId, "context"],
    [workItemId, "work_item"],
    [` ${input.trace_id.toUpperCase()} `, "trace"],
  ];
  for (const [q, type] of byEveryId) {
    const res = await adminGet(`/admin/search.json?q=${encodeURIComponent(q)}`);
    expect({ q, status: res.status, matched: res.body.matched.map((m: { type: string }) => m.type) }).toEqual({
      q,
      status: 200,
      matched: [type],
    });
    expect(res.body.inputs.map((i: { subject_id: string }) => i.subject_id)).toEqual([turn.turn_id]);
    expect(res.body.inputs[0].work_items[0].attempt_records).toHaveLength(1);
  }
  const nothing = await adminGet(`/admin/search.json?q=${crypto.randomUUID()}`);
  expect(nothing.body).toMatchObject({ matched: [], inputs: [], truncated: false });

  // The item's page: its attempts and every stage of its input.
  const page = await adminGet(`/admin/work-items/${workItemId}/detail.json`);
  expect(page.status).toBe(200);
  expect(page.body).toMatchObject({ work_item_id: workItemId, context_name: "search", status: "dead" });
  expect(page.body.attempt_records).toHaveLength(1);
  expect(page.body.timeline[0]).toMatchObject({ queue: "extract_assertions", work_item_id: workItemId, status: "dead", attempts: 1 });
});

test("a context's or session's search shows only its newest inputs, capped; a batch its turns; a document itself", async () => {
  const ctx = await createContext(h.app, "many");
  const api = contextClient(h.app, ctx);
  const session = await api.session();
  const turns = await h.api.db.turn.createManyAndReturn({
    data: Array.from({ length: 25 }, (_, i) => ({
      contextId: ctx.contextId,
      sessionId: session,
      seq: i + 1,
      role: "user",
      content: `turn ${i}`,
      traceId: "f".repeat(32),
      createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
    })),
  });
  const res = await adminGet(`/admin/search.json?q=${ctx.contextId}`);
  expect(res.body.truncated).toBe(true);
  expect(res.body.inputs).toHaveLength(20);
  expect(res.body.inputs[0].subject_id).toBe(turns[24]!.id);
  const bySession = await adminGet(`/admin/search.json?q=${session}`);
  expect({ n: bySession.body.inputs.length, truncated: bySession.body.truncated }).toEqual({ n: 20, truncated: true });
  // A batch's turns in order, and a document (no stage has run yet: no work items).
  const batch = await h.api.db.turnBatch.create({ data: { contextId: ctx.contextId, sessionId: session, firstSeq: 3, lastSeq: 5 } });
  const byBatch = await adminGet(`/admin/search.json?q=${batch.id}`);
  expect(byBatch.body.matched).toEqual([{ type: "batch", id: batch.id }]);
  expect(byBatch.body.inputs.map((i: { subject_id: string; seq: number }) => [i.subject_id, i.seq])).toEqual([
    [turns[2]!.id, 3],
    [turns[3]!.id, 4],
    [turns[4]!.id, 5],
  ]);
  const document = await h.api.db.document.create({
    data: { contextId: ctx.contextId, text: "notes", contentHash: "h", traceId: "e".repeat(32) },
  });
  const byDocument = await adminGet(`/admin/search.json?q=${document.id}`);
  expect(byDocument.body.inputs).toEqual([
    expect.objectContaining({ subject_type: "document", subject_id: document.id, context_name: "many", work_items: [] }),
  ]);
});

test("the work-item list filters by context, status, queue, error class and time, a page at a time", async () => {
  const ctx = await createContext(h.app, "list");
  const budget = await seedItems(ctx.contextId, 5, { queue: "commit_artifacts", status: "failed", errorClass: "budget" });
  const provider = await seedItems(ctx.contextId, 2, { queue: "extract_assertions", status: "dead", errorClass: "provider" });
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await adminGet(
      `/admin/work-items.json?context_id=${ctx.contextId}&status=failed&queue=commit_artifacts&error_class=budget&limit=2${cursor ? `&cursor=${cursor}` : ""}`,
    );
    expect(res.status).toBe(200);
    expect(res.body.work_items.every((w: { context_name: string }) => w.context_name === "list")).toBe(true);
    seen.push(...res.body.work_items.map((w: { work_item_id: string }) => w.work_item_id));
    cursor = res.body.next_cursor;
    pages++;
  } while (cursor);
  expect({ pages, seen }).toEqual({ pages: 3, seen: [...budget].reverse() });
  const dead = await adminGet(`/admin/work-items.json?context_id=${ctx.contextId}&status=dead,failed&error_class=provider`);
  expect(dead.body.work_items.map((w: { work_item_id: string }) => w.work_item_id)).toEqual([...provider].reverse());
  // created_after/created_before: the seeded items are a second apart from 2026-01-01T00:00:00Z.
  const early = await adminGet(
    `/admin/work-items.json?context_id=${ctx.contextId}&created_after=2026-01-01T00:00:01Z&created_before=2026-01-01T00:00:03Z`,
  );
  // Seconds 1 and 2 of the budget items, second 1 of the provider ones.
  const window = early.body.work_items.map((w: { work_item_id: string }) => w.work_item_id);
  expect([...window].sort()).toEqual([budget[2], budget[1], provider[1]].sort());
  expect(early.body.work_items[0].trace_url).toBe(TRACE_UI.replace("{trace_id}", "0".repeat(32)));
});

test("bulk retry counts first (dry run), then retries exactly what the filter matches", async () => {
  const ctx = await createContext(h.app, "bulk");
  const budget = await seedItems(ctx.contextId, 3, { queue: "commit_artifacts", status: "failed", errorClass: "budget" });
  const other = await seedItems(ctx.contextId, 2, { queue: "commit_artifacts", status: "dead", errorClass: "provider" });
  const filter = { context_id: ctx.contextId, error_class: "budget" };
  const dry = await adminPost("/admin/work-items/retries", { ...filter, dry_run: true });
  expect(dry.body).toEqual({ dry_run: true, matched: 3, retried: [], skipped: [] });
  const untouched = await h.api.db.workItem.findMany({ where: { id: { in: budget } } });
  expect(untouched.map((w) => w.status)).toEqual(["failed", "failed", "failed"]);
  const real = await adminPost("/admin/work-items/retries", filter);
  expect(real.status).toBe(200);
  expect({ matched: real.body.matched, retried: real.body.retried.map((w: { work_item_id: string }) => w.work_item_id).sort() }).toEqual({
    matched: 3,
    retried: [...budget].sort(),
  });
  const others = await h.api.db.workItem.findMany({ where: { id: { in: other } } });
  expect(others.map((w) => w.status)).toEqual(["dead", "dead"]);
  // Without the page's origin (or the Bearer key) nothing is retried.
  const crossSite = await admin()
    .post("/admin/work-items/retries")
    .auth("ops", ADMIN_KEY)
    .set("Origin", "https://evil.example")
    .send(filter);
  expect(crossSite.status).toBe(403);
});

test("cancel stops a failed item once; two cancels at once: one wins, the other is a 409", async () => {
  const ctx = await createContext(h.app, "cancel");
  const [id] = await seedItems(ctx.contextId, 1, { queue: "commit_artifacts", status: "failed", errorClass: "budget" });
  const both = await Promise.all([adminPost(`/admin/work-items/${id}/cancel`), adminPost(`/admin/work-items/${id}/cancel`)]);
  expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
  const won = both.find((r) => r.status === 200)!;
  expect(won.body).toMatchObject({ work_item_id: id, status: "cancelled" });
  const lost = both.find((r) => r.status === 409)!;
  expect(lost.body.detail).toMatch(/cancelled/);
  const unknown = await adminPost(`/admin/work-items/${crypto.randomUUID()}/cancel`);
  expect(unknown.status).toBe(404);
  // Retry from extract on a document item with no extraction stage is refused with the reason.
  const fromExtract = await adminPost(`/admin/work-items/${id}/retry?from=extract`);
  expect({ status: fromExtract.status, detail: fromExtract.body.detail }).toEqual({
    status: 409,
    detail: expect.stringContaining("no extraction stage"),
  });
});

test("spend: the last 7 days of model calls per context, with its name", async () => {
  const ctx = await createContext(h.app, "spender");
  const api = contextClient(h.app, ctx);
  const session = await api.session();
  llm.script({ ...EMPTY_DIFF, usage: { inputTokens: 1_000, outputTokens: 100 } });
  const turn = await api.turn(session, "Dana prefers the blue deployment pipeline for every release.", []);
  expect(turn.extraction).toMatchObject({ status: "committed" });
  const res = await adminGet("/admin/spend.json");
  expect(res.status).toBe(200);
  const mine = res.body.contexts.find((c: { context_id: string }) => c.context_id === ctx.contextId);
  expect(mine).toMatchObject({ context_name: "spender", calls: 1, input_tokens: 1_000, output_tokens: 100, cost_usd: 0.0012 });
  expect(Date.parse(res.body.to) - Date.parse(res.body.from)).toBe(7 * 86_400_000);
});

/** A context that holds its candidates for review, and a turn the heuristics read (no model call): its reviews. */
async function heldTurn(name: string, content = "I'm Alice, CTO at Acme. Always respond in bullet points.") {
  const ctx = await createContext(h.app, name, { review: "required" });
  const api = contextClient(h.app, ctx);
  const turn = await api.turn(await api.session(), content, []);
  expect(turn.extraction.status).toBe("pending_review");
  const listed = await api.get(`/reviews?turn_id=${turn.turn_id}`);
  expect(listed.status).toBe(200);
  const reviews: { review_id: string; kind: string; status: string; candidate: Record<string, unknown> }[] = listed.body.reviews;
  expect(reviews.length).toBeGreaterThan(0);
  return { ctx, api, turn, reviews };
}

test("the review queue lists held candidates across contexts or of one, a page at a time, each as GET …/reviews answers it", async () => {
  const first = await heldTurn("reviewed-a");
  const second = await heldTurn("reviewed-b", "I'm Bo, CFO at Initech.");
  const all = await adminGet("/admin/reviews.json");
  expect(all.status).toBe(200);
  const ids = all.body.reviews.map((r: { review_id: string }) => r.review_id);
  expect(ids).toEqual(expect.arrayContaining([...first.reviews, ...second.reviews].map((r) => r.review_id)));
  for (const { ctx, api, reviews } of [first, second]) {
    const one = await adminGet(`/admin/reviews.json?context_id=${ctx.contextId}`);
    const name = ctx === first.ctx ? "reviewed-a" : "reviewed-b";
    expect(one.body.reviews).toEqual(
      (await api.get("/reviews")).body.reviews.map((r: object) => ({ ...r, context_id: ctx.contextId, context_name: name })),
    );
    expect(one.body.reviews).toHaveLength(reviews.length);
  }
  // Filters and paging: one attribute at a time across both contexts, oldest first.
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const res = await adminGet(`/admin/reviews.json?kind=attribute&limit=1${cursor ? `&cursor=${cursor}` : ""}`);
    expect(res.status).toBe(200);
    expect(res.body.reviews.every((r: { kind: string }) => r.kind === "attribute")).toBe(true);
    seen.push(...res.body.reviews.map((r: { review_id: string }) => r.review_id));
    cursor = res.body.next_cursor;
  } while (cursor);
  const attributes = [...first.reviews, ...second.reviews].filter((r) => r.kind === "attribute").map((r) => r.review_id);
  expect(seen).toEqual(attributes);
  expect((await adminGet("/admin/reviews.json?status=rejected")).body.reviews).toEqual([]);
});

test("approve (edited) and reject one review from the dashboard; a foreign origin, another context's id and the opposite decision are refused", async () => {
  const { ctx, api, turn, reviews } = await heldTurn("decide");
  const role = reviews.find((r) => r.kind === "attribute")!;
  const instruction = reviews.find((r) => r.kind === "instruction")!;
  const at = (id: string, action: string, contextId = ctx.contextId) => `/admin/contexts/${contextId}/reviews/${id}/${action}`;

  // Basic credentials with another site's origin (or none): 403, and the review stays pending.
  const foreign = await admin().post(at(role.review_id, "approve")).auth("ops", ADMIN_KEY).set("Origin", "https://evil.example").send({});
  const crossSite = await admin().post(at(role.review_id, "reject")).auth("ops", ADMIN_KEY).set("Sec-Fetch-Site", "cross-site").send({});
  const withoutOrigin = await admin().post(at(role.review_id, "approve")).auth("ops", ADMIN_KEY).send({});
  const withoutKey = await admin().post(at(role.review_id, "approve")).set("Sec-Fetch-Site", "same-origin").send({});
  expect([foreign.status, crossSite.status, withoutOrigin.status, withoutKey.status]).toEqual([403, 403, 403, 401]);
  expect(foreign.body.errors).toEqual([expect.objectContaining({ field: "header.Origin" })]);
  expect((await api.get(`/reviews/${role.review_id}`)).body.status).toBe("pending");

  const other = await createContext(h.app, "not-it");
  expect((await adminPost(at(role.review_id, "approve", other.contextId), {})).status).toBe(404);

  const approved = await adminPost(at(role.review_id, "approve"), { edit: { value: "Chief Technology Officer" }, note: "spelled out" });
  expect(approved.status).toBe(202);
  expect(approved.body).toMatchObject({
    review_id: role.review_id,
    context_id: ctx.contextId,
    status: "approved",
    note: "spelled out",
    edit: { value: { from: role.candidate.value, to: "Chief Technology Officer" } },
  });
  const rejected = await adminPost(at(instruction.review_id, "reject"), { note: "not a standing rule" });
  expect(rejected.status).toBe(200);
  expect(rejected.body).toMatchObject({ review_id: instruction.review_id, status: "rejected", note: "not a standing rule" });
  // A script with the Bearer key gets through too; the opposite decision is a 409 with the reason.
  const script = await admin().post(at(instruction.review_id, "approve")).set("Authorization", `Bearer ${ADMIN_KEY}`).send({});
  expect({ status: script.status, detail: script.body.detail }).toEqual({ status: 409, detail: expect.stringContaining("rejected") });

  await waitFor(async () => (await api.get(`/reviews/${role.review_id}`)).body.status === "committed", { what: "the approval to commit" });
  const profile = JSON.stringify((await api.get("/profile")).body);
  expect(profile).toContain("Chief Technology Officer");
  expect(profile).not.toMatch(/bullet/i);
  const rejectedList = await adminGet(`/admin/reviews.json?context_id=${ctx.contextId}&status=rejected`);
  expect(rejectedList.body.reviews.map((r: { review_id: string }) => r.review_id)).toEqual([instruction.review_id]);
  const pending = await adminGet(`/admin/reviews.json?context_id=${ctx.contextId}`);
  expect(pending.body.reviews.map((r: { review_id: string }) => r.review_id)).not.toContain(role.review_id);
  // The turn's search shows the review commit's items after its own (subject type review: commit, truth maintenance).
  const byTurn = await adminGet(`/admin/search.json?q=${turn.turn_id}`);
  const items: { queue: string; subject_type: string; status: string }[] = byTurn.body.inputs[0].work_items;
  expect(items.filter((i) => i.subject_type === "review").map((i) => [i.queue, i.status])).toEqual([
    ["commit_artifacts", "succeeded"],
    ["truth_maintenance", "succeeded"],
  ]);
  expect(items.findIndex((i) => i.subject_type === "review")).toBeGreaterThan(items.findIndex((i) => i.subject_type === "turn"));
});

test("malformed input is a 400 naming the field", async () => {
  const cases: [Promise<request.Response>, string][] = [
    [adminGet("/admin/search.json"), "query.q"],
    [adminGet("/admin/search.json?q=turn-42"), "query.q"],
    [adminGet(`/admin/search.json?q=${"a".repeat(31)}`), "query.q"],
    [adminGet("/admin/search.json?q[]=x"), "query.q"],
    [adminGet("/admin/work-items.json?limit=201"), "query.limit"],
    [adminGet("/admin/work-items.json?status=broken"), "query.status.0"],
    [adminGet("/admin/work-items.json?context_id=acme"), "query.context_id"],
    [adminGet("/admin/work-items.json?cursor=Zm9yZ2Vk"), "query.cursor"],
    [adminGet("/admin/work-items/nope/detail.json"), "path.workItemId"],
    [adminPost("/admin/work-items/retries", { dry_run: "yes" }), "body.dry_run"],
    [adminPost(`/admin/work-items/${crypto.randomUUID()}/retry?from=scratch`), "query.from"],
    [adminPost("/admin/work-items/nope/cancel"), "path.workItemId"],
    [adminGet("/admin/reviews.json?status=held"), "query.status"],
    [adminGet("/admin/reviews.json?context_id=acme"), "query.context_id"],
    [adminGet("/admin/reviews.json?limit=201"), "query.limit"],
    [adminGet("/admin/reviews.json?cursor=Zm9yZ2Vk"), "query.cursor"],
    [adminPost(`/admin/contexts/acme/reviews/${crypto.randomUUID()}/approve`), "path.contextId"],
    [adminPost(`/admin/contexts/${crypto.randomUUID()}/reviews/nope/reject`), "path.reviewId"],
    [
      adminPost(`/admin/contexts/${crypto.randomUUID()}/reviews/${crypto.randomUUID()}/approve`, { edit: { value: " " } }),
      "body.edit.value",
    ],
    [adminPost(`/admin/contexts/${crypto.randomUUID()}/reviews/${crypto.randomUUID()}/reject`, { edit: {} }), "body.edit"],
  ];
  for (const [pending, field] of cases) {
    const res = await pending;
    expect({ field, status: res.status, type: res.type, fields: res.body.errors?.map((e: { field: string }) => e.field) }).toEqual({
      field,
      status: 400,
      type: "application/problem+json",
      fields: [field],
    });
  }
  expect((await adminGet(`/admin/work-items/${crypto.randomUUID()}/detail.json`)).status).toBe(404);
  const unknownReview = await adminPost(`/admin/contexts/${crypto.randomUUID()}/reviews/${crypto.randomUUID()}/reject`);
  expect({ status: unknownReview.status, detail: unknownReview.body.detail }).toEqual({ status: 404, detail: "review not found" });
});

browserTest("an operator searches a turn id, opens its work item and reads its attempts", async () => {
  const { turn, workItemId } = await failedTurn("browse");
  browser ??= await launchChromium();
  const context = await browser.newContext({ httpCredentials: { username: "ops", password: ADMIN_KEY } });
  const page = await context.newPage();
  await page.goto(`${baseUrl}/admin`);
  await page.fill("#search-q", turn.turn_id);
  await page.click('#search-form button[type="submit"]');
  const link = page.locator(`#search-results [data-subject-id="${turn.turn_id}"] a.open-item[data-work-item-id="${workItemId}"]`);
  await link.click();
  await page.locator(`#item[data-work-item-id="${workItemId}"]`).waitFor();
  const attempts = page.locator("#attempts tbody tr");
  await expect(attempts.count()).resolves.toBe(1);
  await expect(attempts.first().textContent()).resolves.toMatch(/dead.*provider: provider answered 401/);
  const traceLink = attempts.first().locator("a");
  await expect(traceLink.getAttribute("href")).resolves.toMatch(/^http:\/\/traces\.example\/trace\/[0-9a-f]{32}$/);
  await expect(page.locator('#timeline tr[data-queue="extract_assertions"]').textContent()).resolves.toContain("dead");
  await context.close();
});

browserTest("an operator retries a failed turn from the dashboard and watches it finish", async () => {
  const api = contextClient(h.app, await createContext(h.app, "dash"));
  const session = await api.session();
  llm.script({ status: 401, message: "invalid key" });
  const turn = await api.turn(session, "Priya's team owns the payments gateway, which runs on Kubernetes.", []);
  expect(turn.extraction).toMatchObject({ status: "failed", error_class: "provider" });
  const workItemId = turn.extraction.work_item_id!;

  browser ??= await launchChromium();
  const context = await browser.newContext({ httpCredentials: { username: "ops", password: ADMIN_KEY } });
  const page = await context.newPage();
  await page.goto(`${baseUrl}/admin`);
  const failedRow = page.locator(`#failed tr[data-work-item-id="${workItemId}"]`);
  await failedRow.waitFor();
  await expect(failedRow.textContent()).resolves.toMatch(/provider: provider answered 401/);
  // Failures first: the failed list and its Retry are on the first screen, and the work-item list opens on failed
  // and dead work only.
  const viewport = page.viewportSize()!;
  const retryBox = (await failedRow.getByRole("button", { name: "Retry" }).boundingBox())!;
  expect(retryBox.y + retryBox.height).toBeLessThan(viewport.height);
  await page.locator(`#work-items tr[data-work-item-id="${workItemId}"]`).waitFor();
  const listed = await page.locator("#work-items tbody tr").evaluateAll((rows) => rows.map((r) => r.children[4]?.textContent));
  expect(listed.every((status) => status === "failed" || status === "dead")).toBe(true);
  const turnRow = page.locator(`#sessions tr[data-subject-id="${turn.turn_id}"]`);
  await expect(turnRow.locator('[data-queue="extract_assertions"]').getAttribute("data-status")).resolves.toBe("dead");

  llm.script({ json: { entities: [], attributes: [], relations: [], instructions: [], revocations: [], uncertainties: [] } });
  await failedRow.getByRole("button", { name: "Retry" }).click();
  // No reload: the page's polling shows the item leave the failed list and every stage succeed.
  await failedRow.waitFor({ state: "detached", timeout: 30_000 });
  await turnRow.locator('[data-queue="truth_maintenance"][data-status="succeeded"]').waitFor({ timeout: 30_000 });
  const statuses = await turnRow.locator("[data-queue]").evaluateAll((chips) => chips.map((c) => c.getAttribute("data-status")));
  expect(statuses).toEqual(["succeeded", "succeeded", "succeeded", "succeeded"]);
  // The retried item, opened: its attempts read against the maximum of a run, the retry's counted beside them.
  await page.goto(`${baseUrl}/admin#item=${workItemId}`);
  await page.locator(`#item[data-work-item-id="${workItemId}"]`).waitFor();
  const summary = (await page.locator("#item-summary").textContent())!;
  const [done, max] = /(\d+)\/(\d+) attempts/.exec(summary)!.slice(1).map(Number);
  expect(done!).toBeLessThanOrEqual(max!);
  expect(summary).toMatch(/succeeded/);
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, "dashboard-after-retry.png"), fullPage: true });
  expect(existsSync(path.join(SCREENSHOTS, "dashboard-after-retry.png"))).toBe(true);
});

/** A held turn's attribute review, and the dashboard's review queue open in Chromium on its context, at its row. */
async function reviewQueuePage(name: string, text: string) {
  const { ctx, api, reviews } = await heldTurn(name, text);
  const role = reviews.find((r) => r.kind === "attribute")!;
  browser ??= await launchChromium();
  const context = await browser.newContext({ httpCredentials: { username: "ops", password: ADMIN_KEY } });
  const page = await context.newPage();
  await page.goto(`${baseUrl}/admin`);
  await page.fill('#review-filter input[name="context_id"]', ctx.contextId);
  await page.click('#review-filter button[type="submit"]');
  // The filtered list, not the page's first load answering late (an edit form opened in that one would be replaced).
  await page.locator("#reviews:not([data-loading])").waitFor();
  const reviewRow = page.locator(`#reviews tr[data-review-id="${role.review_id}"][data-status="pending"]`);
  await reviewRow.waitFor();
  return { api, role, page, context, reviewRow };
}

browserTest("an operator approves a held candidate from the dashboard's review queue", async () => {
  const { api, role, page, context, reviewRow } = await reviewQueuePage("click", "I'm Ines, CEO at Globex.");
  await expect(reviewRow.textContent()).resolves.toMatch(/attribute.*Ines.*CEO/);
  await reviewRow.getByRole("button", { name: "Approve" }).click();
  // The page's POST carries its own origin: the guard lets it through and the list shows the review gone from pending.
  await page.locator("#review-status", { hasText: `review ${role.review_id.slice(0, 8)} now approved` }).waitFor();
  await reviewRow.waitFor({ state: "detached" });
  expect(["approved", "committed"]).toContain((await api.get(`/reviews/${role.review_id}`)).body.status);
  await context.close();
});

browserTest("an operator edits a held candidate before approving it; a refused edit names its field and stays open", async () => {
  const { api, role, page, context, reviewRow } = await reviewQueuePage("edit", "I'm Noor, CTO at Hooli.");
  await page.fill("#review-note", "spelled out");
  await reviewRow.getByRole("button", { name: "Edit" }).click();
  const value = reviewRow.locator('form.review-edit input[name="value"]');
  await expect(value.inputValue()).resolves.toBe(role.candidate.value);

  // Blank is refused by the API's edit rules: the status names the field and the form stays for a correction.
  await value.fill(" ");
  await reviewRow.getByRole("button", { name: "Approve edited" }).click();
  await page.locator("#review-status", { hasText: "body.edit.value" }).waitFor();
  expect((await api.get(`/reviews/${role.review_id}`)).body.status).toBe("pending");

  await value.fill("Chief Technology Officer");
  await reviewRow.getByRole("button", { name: "Approve edited" }).click();
  await page.locator("#review-status", { hasText: `review ${role.review_id.slice(0, 8)} now approved (edited)` }).waitFor();
  const decided = await waitFor(async () => {
    const res = await api.get(`/reviews/${role.review_id}`);
    return res.body.status === "committed" ? res.body : undefined;
  });
  // Only the changed field is sent, with the note; the profile holds the edited value.
  expect(decided.edit).toEqual({ value: { from: role.candidate.value, to: "Chief Technology Officer" } });
  expect(decided.note).toBe("spelled out");
  expect(JSON.stringify((await api.get("/profile")).body)).toContain("Chief Technology Officer");
  await context.close();
});

/** Every request a browser context makes, recorded; one for another host is recorded and then aborted, never sent. */
async function recordRequests(context: import("playwright-core").BrowserContext): Promise<URL[]> {
  const seen: URL[] = [];
  context.on("request", (r) => void seen.push(new URL(r.url())));
  await context.route("**/*", (route) =>
    new URL(route.request().url()).hostname === "127.0.0.1" ? route.continue() : route.abort("blockedbyclient"),
  );
  return seen;
}

browserTest(
  "with the key in the address, the failed list pages, an opened item is in view and outlined, and nothing leaves 127.0.0.1",
  async () => {
    const ctx = await createContext(h.app, "paged");
    await seedItems(ctx.contextId, 25, { queue: "commit_artifacts", status: "failed", errorClass: "budget" });
    browser ??= await launchChromium();
    const context = await browser.newContext();
    const requests = await recordRequests(context);
    const page = await context.newPage();
    const { port } = new URL(baseUrl);
    await page.goto(`http://ops:${ADMIN_KEY}@127.0.0.1:${port}/admin`);
    await page.locator("#status", { hasText: "updated" }).waitFor();
    // Every panel loaded: the failed list, the work-item list and the review queue.
    await page.locator("#work-items tbody tr[data-work-item-id]").first().waitFor();
    await page.locator("#reviews:not([data-loading])").waitFor();

    const failedIds = () =>
      page.locator("#failed tbody tr[data-work-item-id]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-work-item-id")));
    await page.locator("#failed-older").waitFor();
    const first = await failedIds();
    expect(first).toHaveLength(10);
    expect(await page.locator("#failed-newer").isHidden()).toBe(true);
    await page.click("#failed-older");
    await page.locator("#failed-page", { hasText: "page 2" }).waitFor();
    await page.locator("#failed tbody tr[data-work-item-id]").first().waitFor();
    const second = await waitFor(async () => {
      const ids = await failedIds();
      return ids.length === 10 && ids[0] !== first[0] ? ids : undefined;
    });
    expect(second.filter((id) => first.includes(id))).toEqual([]);
    // The 2-s refresh keeps the page it is on.
    await page.locator("#status", { hasText: "updated" }).waitFor();
    await page.click("#failed-newer");
    await page.locator("#failed-newer").waitFor({ state: "hidden" });
    expect(await waitFor(async () => ((await failedIds())[0] === first[0] ? true : undefined))).toBe(true);

    // An item opened from the failed list: its page is scrolled to and outlined.
    const id = first[3]!;
    await page.click(`#failed tr[data-work-item-id="${id}"] a.open-item`);
    const item = page.locator(`#item.opened[data-work-item-id="${id}"]`);
    await item.waitFor();
    const placed = await item.evaluate((node) => {
      const view = node.ownerDocument.defaultView!;
      return {
        top: Math.round(node.getBoundingClientRect().top),
        viewport: view.innerHeight,
        outline: view.getComputedStyle(node).outlineStyle,
      };
    });
    expect(placed.top).toBeGreaterThanOrEqual(0);
    expect(placed.top).toBeLessThan(placed.viewport / 2);
    expect(placed.outline).toBe("solid");

    // Bull Board's page (with the key as Basic credentials: its own code fetches relative URLs).
    const queues = await browser.newContext({ httpCredentials: { username: "ops", password: ADMIN_KEY } });
    const queueRequests = await recordRequests(queues);
    const board = await queues.newPage();
    await board.goto(`${baseUrl}/admin/queues`);
    await board.getByText("extract_assertions").first().waitFor();
    const outside = [...requests, ...queueRequests].filter((u) => u.hostname !== "127.0.0.1").map((u) => u.href);
    expect(outside).toEqual([]);
    expect(queueRequests.some((u) => u.pathname.startsWith("/admin/queues/static/"))).toBe(true);
    await queues.close();
    await context.close();
  },
);
