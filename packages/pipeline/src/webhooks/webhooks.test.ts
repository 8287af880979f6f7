// Webhook delivery pieces: the signature a receiver checks, the retry schedule, the address policy
// (at registration and, through the request's own lookup, at delivery), the triggers that write events in
// the transaction producing them, and the claim lease that hands a crashed worker's delivery to another.
import { createHmac, randomUUID } from "node:crypto";
import { startWebhookReceiver, waitFor, type WebhookReceiver } from "@recall/test-support";
import { db, logger, newItem, useQueueTestEnv } from "../testing/queue-test-env";
import { webhookBackoffMs } from "./backoff";
import { claimDue, pruneDeliveries } from "./delivery-store";
import { sendRequest } from "./send-request";
import { newWebhookSecret, signatureHeader, verifySignature } from "./signature";
import { AddressPolicy, WebhookUrlError, checkWebhookUrl } from "./url-guard";
import { WebhookDispatcher } from "./webhook-dispatcher";

useQueueTestEnv();

let receiver: WebhookReceiver;
beforeEach(async () => {
  receiver = await startWebhookReceiver();
});
afterEach(async () => {
  await receiver.close();
  await db.webhook.deleteMany();
  await db.webhookEvent.deleteMany();
});

const LOOPBACK = new AddressPolicy(["127.0.0.0/8", "::1/128"]);
const NOTHING_ALLOWED = new AddressPolicy([]);

describe("signature", () => {
  test("v1 is the hex HMAC-SHA256 of '<t>.<raw body>' under the secret", () => {
    const body = '{"id":"e1","type":"turn.committed"}';
    const expected = createHmac("sha256", "whsec_test").update(`1700000000.${body}`).digest("hex");
    expect(signatureHeader("whsec_test", 1_700_000_000, body)).toBe(`t=1700000000,v1=${expected}`);
  });

  test("verification refuses another secret, a changed body and a stale timestamp; accepts any of several v1", () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const now = 1_700_000_000;
    const header = signatureHeader(secret, now, "{}");
    expect(verifySignature(secret, header, "{}", { nowSeconds: now + 10 })).toBe(true);
    expect(verifySignature("whsec_other", header, "{}", { nowSeconds: now })).toBe(false);
    expect(verifySignature(secret, header, "{ }", { nowSeconds: now })).toBe(false);
    expect(verifySignature(secret, header, "{}", { nowSeconds: now + 301 })).toBe(false);
    expect(verifySignature(secret, `${header},v1=${"0".repeat(64)}`, "{}", { nowSeconds: now })).toBe(true);
    expect(verifySignature(secret, "garbage", "{}", { nowSeconds: now })).toBe(false);
  });
});

describe("backoff", () => {
  const retry = { baseMs: 5_000, maxMs: 3_600_000 };
  const middle = () => 0.5;

  test("5 s doubling per attempt up to the cap, jittered within ±20%", () => {
    expect([1, 2, 3, 4, 10].map((a) => webhookBackoffMs(a, retry, middle))).toEqual([5_000, 10_000, 20_000, 40_000, 2_560_000]);
    expect(webhookBackoffMs(11, retry, middle)).toBe(3_600_000);
    expect(webhookBackoffMs(500, retry, middle)).toBe(3_600_000);
    expect(webhookBackoffMs(1, retry, () => 0)).toBe(4_000);
    expect(webhookBackoffMs(1, retry, () => 0.999_999)).toBe(6_000);
  });

  test("the default schedule keeps retrying through a day: about 33 attempts", () => {
    let elapsed = 0;
    let attempts = 0;
    while (elapsed < 86_400_000) elapsed += webhookBackoffMs(++attempts, retry, middle);
    expect(attempts).toBeGreaterThan(30);
    expect(attempts).toBeLessThan(36);
  });
});

describe("address policy", () => {
  test("private, loopback, link-local and mapped internal addresses are refused unless allowed", () => {
    for (const address of [
      "10.1.2.3",
      "127.0.0.1",
      "169.254.169.254",
      "172.31.0.1",
      "192.168.0.1",
      "100.64.0.1",
      "0.0.0.0",
      "::1",
      "fe80::1",
      "fd00::1",
      "::ffff:10.0.0.1",
      "::ffff:7f00:1",
      // IPv4 inside IPv6: 6to4, NAT64 (well-known and local-use prefixes), SIIT, IPv4-compatible, Teredo.
      "2002:7f00:1::",
      "2002:a9fe:a9fe::1",
      "64:ff9b::7f00:1",
      "64:ff9b::a9fe:a9fe",
      "64:ff9b:1::a00:1",
      "::ffff:0:7f00:1",
      "::7f00:1",
      "::a9fe:a9fe",
      "2001:0:4136:e378:8000:63bf:80ff:fffe",
      "2001:0:7f00:1:8000:63bf:3fff:fdd2",
      // Other internal or reserved ranges.
      "255.255.255.255",
      "224.0.0.1",
      "198.18.0.1",
      "fec0::1",
      "2001:db8::1",
      "ff02::1",
    ]) {
      expect({ address, refused: NOTHING_ALLOWED.refusal(address) !== undefined }).toEqual({ address, refused: true });
    }
    for (const address of ["93.184.216.34", "8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8", "2002:808:808::1", "64:ff9b::808:808"]) {
      expect({ address, refusal: NOTHING_ALLOWED.refusal(address) }).toEqual({ address, refusal: undefined });
    }
    expect(NOTHING_ALLOWED.refusal("2002:7f00:1::")).toMatch(/6to4 address of a loopback/);
    expect(LOOPBACK.refusal("::ffff:127.0.0.1")).toBeUndefined();
    expect(LOOPBACK.refusal("127.0.0.1")).toBeUndefined();
    expect(LOOPBACK.refusal("::1")).toBeUndefined();
    expect(LOOPBACK.refusal("10.0.0.1")).toBeDefined();
  });

  test("registration resolves the host: a name for loopback is refused like the address", async () => {
    await expect(checkWebhookUrl("http://localhost:9/hook", NOTHING_ALLOWED)).rejects.toThrow(WebhookUrlError);
    // The refusal names the setting that would allow it.
    await expect(checkWebhookUrl("http://127.0.0.1:9/hook", NOTHING_ALLOWED)).rejects.toThrow(/loopback.*WEBHOOK_ALLOWED_NETWORKS/);
    await expect(checkWebhookUrl("http://does-not-exist.invalid/", NOTHING_ALLOWED)).rejects.toThrow(/does not resolve/);
    await expect(checkWebhookUrl("gopher://example.com/", NOTHING_ALLOWED)).rejects.toThrow(/http or https/);
    expect((await checkWebhookUrl("http://localhost:9/hook", LOOPBACK)).hostname).toBe("localhost");
  });

  test("delivery checks the address it connects to: a name resolving to a refused address is never connected", async () => {
    const url = new URL(receiver.url.replace("127.0.0.1", "localhost"));
    const req = { url, headers: {}, body: "{}", timeoutMs: 2_000 };
    await expect(sendRequest({ ...req, policy: NOTHING_ALLOWED })).rejects.toThrow(WebhookUrlError);
    await expect(sendRequest({ ...req, url: new URL(receiver.url), policy: NOTHING_ALLOWED })).rejects.toThrow(WebhookUrlError);
    expect(receiver.received).toHaveLength(0);
    const sent = await sendRequest({ ...req, url: new URL(receiver.url), policy: LOOPBACK });
    expect(sent).toEqual({ status: 200, snippet: "ok" });
  });
});

async function webhook(contextId: string, events: string[], url = receiver.url) {
  return db.webhook.create({ data: { contextId, url, events, secret: newWebhookSecret() } });
}

describe("events written by triggers", () => {
  test("a work item going dead writes work_item.dead and turn.failed for the context's subscribers only", async () => {
    const item = await newItem("commit_artifacts");
    const quiet = await newItem("commit_artifacts");
    const hook = await webhook(item.contextId, ["work_item.dead", "turn.failed"]);
    await db.workItem.update({ where: { id: item.id }, data: { status: "dead", errorClass: "internal" } });
    await db.workItem.update({ where: { id: quiet.id }, data: { status: "dead" } });
    const events = await db.webhookEvent.findMany({ orderBy: { type: "asc" } });
    expect(events.map((e) => [e.type, e.contextId])).toEqual([
      ["turn.failed", item.contextId],
      ["work_item.dead", item.contextId],
    ]);
    expect(events[1]!.data).toMatchObject({ work_item_id: item.id, queue: "commit_artifacts", error_class: "internal" });
    expect(await db.webhookDelivery.count({ where: { webhookId: hook.id } })).toBe(2);
  });

  test("a disabled webhook, or one not subscribed to the type, gets nothing written", async () => {
    const item = await newItem("truth_maintenance");
    await webhook(item.contextId, ["fact.superseded"]);
    const off = await webhook(item.contextId, ["work_item.dead"]);
    await db.webhook.update({ where: { id: off.id }, data: { disabledAt: new Date() } });
    await db.workItem.update({ where: { id: item.id }, data: { status: "dead" } });
    expect(await db.webhookEvent.count()).toBe(0);
  });
});

describe("claims", () => {
  async function event(contextId: string) {
    const [row] = await db.$queryRaw<{ id: string }[]>`
      SELECT recall_webhook_emit(${contextId}::uuid, 'work_item.dead', '{"work_item_id":"x"}'::jsonb)::text AS id`;
    return row!.id;
  }

  const dispatcher = () =>
    new WebhookDispatcher({
      db,
      logger,
      allowedNetworks: ["127.0.0.0/8"],
      timeoutMs: 2_000,
      retry: { baseMs: 50, maxMs: 1_000, forMs: 60_000 },
      disableAfterMs: 60_000,
      pollMs: 1_000,
      concurrency: 4,
      retentionMs: 86_400_000,
    });

  test("two claimers never take the same delivery", async () => {
    const contextId = randomUUID();
    await webhook(contextId, ["work_item.dead"]);
    for (let i = 0; i < 6; i++) await event(contextId);
    const [a, b] = await Promise.all([claimDue(db, 4, 60_000, 60_000), claimDue(db, 4, 60_000, 60_000)]);
    const ids = [...a, ...b].map((c) => c.id);
    expect(ids).toHaveLength(6);
    expect(new Set(ids).size).toBe(6);
  });

  test("a claim whose worker died falls due when its lease ends and is delivered once, same event id", async () => {
    const contextId = randomUUID();
    await webhook(contextId, ["work_item.dead"]);
    const eventId = await event(contextId);
    // A worker claims it and dies before sending: nothing else may take it during the lease.
    const [claim] = await claimDue(db, 10, 600_000, 60_000);
    expect(claim).toBeDefined();
    expect(await dispatcher().drain()).toBe(0);
    // The lease ends (its end moved to now, rather than a sleep racing a short lease on a busy machine).
    await db.webhookDelivery.update({ where: { id: claim!.id }, data: { nextAttemptAt: new Date(Date.now() - 1_000) } });
    expect(await dispatcher().drain()).toBe(1);
    expect(receiver.received.map((r) => r.body.id)).toEqual([eventId]);
    const delivery = await db.webhookDelivery.findFirstOrThrow({ where: { eventId } });
    expect(delivery).toMatchObject({ status: "delivered", attempts: 2, lastStatusCode: 200 });
  });

  test("a failure is retried after its backoff; the endpoint's failing_since is set, then cleared by a success", async () => {
    const contextId = randomUUID();
    const hook = await webhook(contextId, ["work_item.dead"]);
    await event(contextId);
    receiver.answer(500, 200);
    const d = dispatcher();
    expect(await d.drain()).toBe(1);
    const failed = await db.webhookDelivery.findFirstOrThrow({ where: { webhookId: hook.id } });
    expect(failed).toMatchObject({ status: "pending", attempts: 1, lastStatusCode: 500, lastError: "answered 500" });
    expect((await db.webhook.findUniqueOrThrow({ where: { id: hook.id } })).failingSince).not.toBeNull();
    await waitFor(async () => (await d.drain()) > 0, { what: "the retry" });
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.rawBody).toBe(receiver.received[0]!.rawBody);
    expect((await db.webhook.findUniqueOrThrow({ where: { id: hook.id } })).failingSince).toBeNull();
  });

  test("pruning deletes finished deliveries past the retention and their events, never pending ones", async () => {
    const contextId = randomUUID();
    await webhook(contextId, ["work_item.dead"]);
    const [done, failed, pending, recent] = [
      await event(contextId),
      await event(contextId),
      await event(contextId),
      await event(contextId),
    ];
    const old = new Date(Date.now() - 2 * 86_400_000);
    await db.webhookDelivery.updateMany({ where: { eventId: done }, data: { status: "delivered", createdAt: old } });
    await db.webhookDelivery.updateMany({ where: { eventId: failed }, data: { status: "failed", createdAt: old } });
    await db.webhookDelivery.updateMany({ where: { eventId: pending }, data: { createdAt: old } });
    await db.webhookDelivery.updateMany({ where: { eventId: recent }, data: { status: "delivered" } });
    await db.webhookEvent.updateMany({ where: { id: { in: [done, failed, pending] } }, data: { createdAt: old } });
    expect(await pruneDeliveries(db, 86_400_000)).toBe(2);
    expect((await db.webhookEvent.findMany({ select: { id: true } })).map((e) => e.id).sort()).toEqual([pending, recent].sort());
    expect(await db.webhookDelivery.count()).toBe(2);
  });
});
