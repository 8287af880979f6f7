// Webhooks end to end: a local receiver registered for a context gets each event signed (checked here
// with node:crypto, as a receiver would), a 500 is retried with the same event id, deliveries are
// listed and can be sent again; bad URLs (private, loopback outside the allow-list, other schemes) are
// refused naming `url`; an endpoint that keeps failing is disabled with a webhook.disabled event.
import { createHmac } from "node:crypto";
import { WEBHOOK_EVENT_TYPES } from "@recall/contracts";
import { startFakeLlmServer, startWebhookReceiver, waitFor, type ReceivedRequest, type WebhookReceiver } from "@recall/test-support";
import { RecallClient, RecallError } from "@recall/client";
import { dashboardOverview } from "../operators/dashboard/dashboard-overview";
import { listen } from "../testing/listen";
import { startHarness, type Harness } from "../testing/harness";
import { contextClient, createContext, type ContextClient } from "../testing/api-client";

let h: Harness;
let receiver: WebhookReceiver;
const afterThis: (() => Promise<void>)[] = [];

const LOOPBACK_ONLY = { WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8", WEBHOOK_RETRY_BASE_MS: "100", WEBHOOK_POLL_MS: "100" };
const TURN = "I'm Alice, CTO at Acme. Always respond in bullet points.";

beforeEach(async () => {
  receiver = await startWebhookReceiver();
});

afterEach(async () => {
  await h?.close();
  await receiver?.close();
  for (const close of afterThis.splice(0)) await close();
});

/** What a receiver checks: HMAC-SHA256 over "<t>.<raw body>" with the secret, hex, in v1. */
function verify(secret: string, request: ReceivedRequest): boolean {
  const header = String(request.headers["recall-signature"]);
  // `t=…,v1=…`, with a second v1 while a rotated-out secret's grace period lasts: any one may match.
  const match = /^t=(\d+)((?:,v1=[0-9a-f]{64})+)$/.exec(header);
  if (!match) return false;
  const expected = createHmac("sha256", secret).update(`${match[1]}.${request.rawBody}`).digest("hex");
  const given = match[2]!.split(",v1=").slice(1);
  return given.includes(expected) && Math.abs(Date.now() / 1_000 - Number(match[1])) < 300;
}

async function register(api: ContextClient, url: string, events: string[]) {
  const res = await api.post("/webhooks", { url, events, description: "test receiver" });
  expect(res.status).toBe(201);
  return res.body as { webhook_id: string; secret: string };
}

const ofType = (type: string) => receiver.received.filter((r) => r.body.type === type);

test("a committed turn is pushed signed; a 500 is retried with the same event id; deliveries are listed and redelivered", async () => {
  // Batches go to the model in windows: a scripted one that finds nothing (the heuristics' reading stands).
  const llm = await startFakeLlmServer();
  llm.respondWith(() => ({ json: { entities: [], attributes: [], relations: [], instructions: [], revocations: [], uncertainties: [] } }));
  afterThis.push(() => llm.close());
  h = await startHarness({ ...LOOPBACK_ONLY, RECALL_FAST_MODEL: "openai-compatible:test-fast", OPENAI_BASE_URL: llm.openaiBaseUrl });
  const ctx = await createContext(h.app, "hooks");
  const api = contextClient(h.app, ctx);
  const hook = await register(api, receiver.url, ["turn.committed", "batch.done", "document.committed"]);
  expect(hook.secret).toMatch(/^whsec_/);
  receiver.answer(500, 200);

  const session = await api.session();
  const turn = await api.turn(session, TURN, ["org=acme"]);
  expect(turn.extraction.status).toBe("committed");
  const [first, second] = await waitFor(async () => ofType("turn.committed").length >= 2 && ofType("turn.committed"), {
    what: "the turn event delivered twice",
  });
  expect(second!.body.id).toBe(first!.body.id);
  expect(second!.headers["recall-event-id"]).toBe(first!.body.id);
  expect(second!.rawBody).toBe(first!.rawBody);
  expect(first!.body).toMatchObject({
    type: "turn.committed",
    context_id: ctx.contextId,
    data: { turn_id: turn.turn_id, session_id: session },
  });
  expect(verify(hook.secret, first!) && verify(hook.secret, second!)).toBe(true);
  expect(verify("whsec_wrong", second!)).toBe(false);
  expect(first!.rawBody).not.toContain("Alice");

  const listed = await waitFor(async () => {
    const res = await api.get(`/webhooks/${hook.webhook_id}/deliveries`);
    return res.body.deliveries?.[0]?.status === "delivered" && res.body;
  });
  expect(listed.deliveries).toEqual([
    expect.objectContaining({
      event_id: first!.body.id,
      event_type: "turn.committed",
      attempts: 2,
      last_status_code: 200,
      next_attempt_at: null,
    }),
  ]);
  expect(listed.next_cursor).toBeNull();

  const again = await api.post(`/webhooks/${hook.webhook_id}/deliveries/${listed.deliveries[0].delivery_id}/redeliver`);
  expect(again.status).toBe(202);
  const third = await waitFor(async () => ofType("turn.committed")[2], { what: "the redelivery" });
  expect(third.body.id).toBe(first!.body.id);
  expect(verify(hook.secret, third)).toBe(true);

  // A batch's turns each commit, then batch.done says so once.
  const batch = await api.post(`/sessions/${session}/turns/batch`, {
    turns: ["Bob is the CFO at Acme.", "Carol lives in Paris."].map((content) => ({ role: "user", content, scope: ["org=acme"] })),
  });
  expect(batch.status).toBe(202);
  const done = await waitFor(async () => ofType("batch.done")[0], { what: "batch.done" });
  expect(done.body.data).toMatchObject({ batch_id: batch.body.batch_id, turns: 2, committed: 2, failed: 0 });
  await waitFor(async () => batch.body.turn_ids.every((id: string) => ofType("turn.committed").some((r) => r.body.data.turn_id === id)), {
    what: "each batch turn's turn.committed",
  });
  expect(ofType("batch.done")).toHaveLength(1);

  const document = await api.post("/documents", { text: "# Ledger\n\nOsprey is the ledger service of Acme." });
  expect(document.status).toBe(202);
  const documentEvent = await waitFor(async () => ofType("document.committed")[0], { what: "document.committed" });
  expect(documentEvent.body.data).toMatchObject({ document_id: document.body.document_id });
  expect(documentEvent.rawBody).not.toContain("Osprey");

  // The list shows no secret; rotating answers a new one that signs from then on.
  const list = await api.get("/webhooks");
  expect(list.body.webhooks).toEqual([expect.objectContaining({ webhook_id: hook.webhook_id, url: receiver.url, disabled_at: null })]);
  expect(JSON.stringify(list.body)).not.toContain(hook.secret);
  const rotated = await api.post(`/webhooks/${hook.webhook_id}/rotate-secret`);
  expect(rotated.status).toBe(200);
  expect(rotated.body.secret).not.toBe(hook.secret);
  const dave = await api.turn(session, "Dave is the COO at Acme.", ["org=acme"]);
  const latest = await waitFor(async () => ofType("turn.committed").find((r) => r.body.data.turn_id === dave.turn_id), {
    what: "an event after rotation",
  });
  expect(verify(rotated.body.secret, latest)).toBe(true);
  expect(verify(hook.secret, latest)).toBe(false);

  // Rotating with a grace period: both secrets sign until it ends, so a receiver can switch without refusing one.
  const graced = await api.post(`/webhooks/${hook.webhook_id}/rotate-secret`, { keep_old_for_seconds: 3600 });
  expect(graced.status).toBe(200);
  expect(Date.parse(graced.body.previous_secret_until) - Date.now()).toBeGreaterThan(3500_000);
  const erin = await api.turn(session, "Erin is the CMO at Acme.", ["org=acme"]);
  const both = await waitFor(async () => ofType("turn.committed").find((r) => r.body.data.turn_id === erin.turn_id), {
    what: "an event in the grace period",
  });
  expect(String(both.headers["recall-signature"]).match(/v1=/g)).toHaveLength(2);
  expect(verify(graced.body.secret, both)).toBe(true);
  expect(verify(rotated.body.secret, both)).toBe(true);
  expect(verify(hook.secret, both)).toBe(false);
  const tooLong = await api.post(`/webhooks/${hook.webhook_id}/rotate-secret`, { keep_old_for_seconds: 8 * 86_400 });
  expect(tooLong.status).toBe(400);
  expect(tooLong.body.errors[0].field).toBe("body.keep_old_for_seconds");
}, 120_000);

test("superseded facts and revoked instructions are announced; other contexts see nothing of a webhook; deletion stops deliveries", async () => {
  h = await startHarness(LOOPBACK_ONLY);
  const api = contextClient(h.app, await createContext(h.app, "facts"));
  const other = contextClient(h.app, await createContext(h.app, "other"));
  const hook = await register(api, receiver.url, ["fact.superseded", "instruction.revoked"]);
  const role = (value: string) => ({ entity: "Carol", entity_type: "person", key: "role", value, memory_category: "identity" });
  const cto = await api.post("/facts", { scope: ["org=acme"], attributes: [role("CTO")] });
  const ceo = await api.post("/facts", { scope: ["org=acme"], attributes: [role("CEO")] });
  expect(ceo.body.truth_maintenance.superseded).toHaveLength(1);
  const event = await waitFor(async () => ofType("fact.superseded")[0], { what: "fact.superseded" });
  expect(event.body.data).toMatchObject({
    fact_kind: "attribute",
    fact_id: cto.body.committed.attribute_ids[0],
    superseded_by: ceo.body.committed.attribute_ids[0],
  });
  expect(event.rawBody).not.toContain("CTO");

  const session = await api.session();
  await api.turn(session, "Always respond in bullet points.", ["org=acme"]);
  const stop = await api.turn(session, "Stop using bullet points.", ["org=acme"]);
  const revoked = await waitFor(async () => ofType("instruction.revoked")[0], { what: "instruction.revoked" });
  expect(revoked.body.data).toMatchObject({ revoked_by_turn_id: stop.turn_id, instruction_id: expect.any(String) });

  expect((await other.get(`/webhooks/${hook.webhook_id}`)).status).toBe(404);
  expect((await other.get(`/webhooks/${hook.webhook_id}/deliveries`)).status).toBe(404);
  expect((await other.del(`/webhooks/${hook.webhook_id}`)).status).toBe(404);
  expect((await api.get("/webhooks/not-a-uuid")).status).toBe(400);
  expect((await api.get(`/webhooks/${hook.webhook_id}/deliveries?cursor=forged`)).status).toBe(400);
  expect((await api.get(`/webhooks/${hook.webhook_id}/deliveries?limit=101`)).status).toBe(400);

  const deleted = await Promise.all([api.del(`/webhooks/${hook.webhook_id}`), api.del(`/webhooks/${hook.webhook_id}`)]);
  expect(deleted.map((r) => r.status).sort()).toEqual([200, 404]);
  expect(deleted.find((r) => r.status === 200)!.body).toMatchObject({ webhook_id: hook.webhook_id });
  expect((await api.get(`/webhooks/${hook.webhook_id}`)).status).toBe(404);
  const before = receiver.received.length;
  await api.post("/facts", { scope: ["org=acme"], attributes: [role("CFO")] });
  expect(await h.api.db.webhookEvent.count({ where: { type: "fact.superseded" } })).toBe(1);
  expect(receiver.received.length).toBe(before);
}, 120_000);

test("URLs that are not http(s), carry credentials or point at private, link-local or non-allowed loopback addresses are refused naming url", async () => {
  h = await startHarness({ ...LOOPBACK_ONLY, WEBHOOK_MAX_PER_CONTEXT: "2" });
  const api = contextClient(h.app, await createContext(h.app, "ssrf"));
  const refused = [
    "http://10.0.0.7/hook",
    "http://169.254.169.254/latest/meta-data",
    "http://192.168.1.1/",
    "http://[::1]:8080/",
    "http://[fe80::1]/",
    "http://[::ffff:10.0.0.1]/",
    "http://0.0.0.0:8080/",
    "ftp://example.com/hook",
    "file:///etc/passwd",
    "http://user:pw@127.0.0.1/hook",
    "not a url",
    `http://127.0.0.1/${"a".repeat(2_100)}`,
  ];
  for (const url of refused) {
    const res = await api.post("/webhooks", { url, events: ["turn.committed"] });
    expect({ url, status: res.status }).toEqual({ url, status: 400 });
    expect(res.body.errors?.[0]?.field).toBe("body.url");
  }
  const badEvents = await api.post("/webhooks", { url: receiver.url, events: ["turn.committed", "memory.exploded"] });
  expect(badEvents.status).toBe(400);
  expect(badEvents.body.errors[0].field).toBe("body.events.1");
  expect((await api.post("/webhooks", { url: receiver.url, events: [] })).status).toBe(400);
  expect(
    (await api.post("/webhooks", { url: receiver.url, events: Array(WEBHOOK_EVENT_TYPES.length + 1).fill("turn.committed") })).status,
  ).toBe(400);

  // Two registrations racing for the last of two places: one gets it.
  await register(api, receiver.url, ["turn.committed"]);
  const raced = await Promise.all([1, 2].map(() => api.post("/webhooks", { url: receiver.url, events: ["turn.failed"] })));
  expect(raced.map((r) => r.status).sort()).toEqual([201, 409]);
  expect(await h.api.db.webhook.count()).toBe(2);
}, 60_000);

test("an endpoint failing past the disable window is disabled, announced by webhook.disabled, and cannot be redelivered", async () => {
  h = await startHarness({ ...LOOPBACK_ONLY, WEBHOOK_DISABLE_AFTER_MS: "1000" });
  const api = contextClient(h.app, await createContext(h.app, "failing"));
  const failing = await startWebhookReceiver();
  failing.answer(503);
  try {
    const broken = await register(api, failing.url, ["turn.committed"]);
    await register(api, receiver.url, ["webhook.disabled"]);
    const session = await api.session();
    await api.turn(session, TURN, ["org=acme"]);
    const disabled = await waitFor(async () => ofType("webhook.disabled")[0], { what: "webhook.disabled" });
    expect(disabled.body.data).toMatchObject({ webhook_id: broken.webhook_id });
    expect(failing.received.length).toBeGreaterThanOrEqual(2);
    const shown = await api.get(`/webhooks/${broken.webhook_id}`);
    expect(shown.body.disabled_at).not.toBeNull();
    // The operators' dashboard lists it among the problems.
    const overview = await dashboardOverview(h.api);
    expect(overview.webhooks).toEqual([expect.objectContaining({ webhook_id: broken.webhook_id, url: failing.url })]);
    const [delivery] = (await api.get(`/webhooks/${broken.webhook_id}/deliveries`)).body.deliveries;
    expect(delivery).toMatchObject({ status: "pending", last_status_code: 503 });
    expect((await api.post(`/webhooks/${broken.webhook_id}/deliveries/${delivery.delivery_id}/redeliver`)).status).toBe(409);
    // Disabled: a later event is not even written for it.
    const before = failing.received.length;
    const missed = await api.turn(session, "Erin is the CMO at Acme.", ["org=acme"]);
    expect(await h.api.db.webhookDelivery.count({ where: { webhookId: broken.webhook_id } })).toBe(1);
    expect(failing.received.length).toBe(before);

    // Fixed and enabled: the pending delivery goes out at once, later events again; the missed one never.
    failing.answer(200);
    const enabled = await api.post(`/webhooks/${broken.webhook_id}/enable`, {});
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({ disabled_at: null, failing_since: null });
    await waitFor(
      async () =>
        (await api.get(`/webhooks/${broken.webhook_id}/deliveries`)).body.deliveries[0].status === "delivered" ? true : undefined,
      { what: "the pending delivery after enabling" },
    );
    const later = await api.turn(session, "Frank is the CIO at Acme.", ["org=acme"]);
    await waitFor(async () => failing.received.find((r) => r.body.data.turn_id === later.turn_id), { what: "an event after enabling" });
    expect(failing.received.some((r) => r.body.data.turn_id === missed.turn_id)).toBe(false);
    expect((await api.post(`/webhooks/${broken.webhook_id}/deliveries/${delivery.delivery_id}/redeliver`)).status).toBe(202);
  } finally {
    await failing.close();
  }
}, 120_000);

test("the TypeScript client's webhook calls", async () => {
  h = await startHarness(LOOPBACK_ONLY);
  const server = await listen(h.app);
  afterThis.push(() => server.close());
  const ctx = await createContext(h.app, "client");
  const recall = new RecallClient({ baseUrl: server.url, contextId: ctx.contextId, apiKey: ctx.apiKey });
  const created = await recall.webhooks.create({ url: receiver.url, events: ["turn.committed"], description: "ts" });
  expect(created.secret).toMatch(/^whsec_/);
  expect((await recall.webhooks.list()).webhooks.map((w) => w.webhook_id)).toEqual([created.webhook_id]);
  expect(await recall.webhooks.get(created.webhook_id)).not.toHaveProperty("secret");
  const session = await recall.sessions.create();
  await recall.turns.post(session.session_id, { role: "user", content: "Frank is the CIO at Acme.", scope: ["org=acme"] });
  const page = await waitFor(async () => {
    const p = await recall.webhooks.deliveries(created.webhook_id, { limit: 1 });
    return p.deliveries[0]?.status === "delivered" && p;
  });
  const again = await recall.webhooks.redeliver(created.webhook_id, page.deliveries[0]!.delivery_id);
  expect(again.event_id).toBe(page.deliveries[0]!.event_id);
  expect((await recall.webhooks.rotateSecret(created.webhook_id)).secret).not.toBe(created.secret);
  const graced = await recall.webhooks.rotateSecret(created.webhook_id, { keep_old_for_seconds: 60 });
  expect(graced.previous_secret_until).not.toBeNull();
  expect((await recall.webhooks.enable(created.webhook_id)).disabled_at).toBeNull();
  const refused = await recall.webhooks.create({ url: "http://169.254.169.254/", events: ["turn.committed"] }).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(RecallError);
  expect((refused as RecallError).errors.map((e) => e.field)).toEqual(["body.url"]);
  expect((await recall.webhooks.delete(created.webhook_id)).webhook_id).toBe(created.webhook_id);
}, 60_000);
