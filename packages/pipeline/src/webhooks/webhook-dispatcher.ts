// Delivers webhook events at least once, from Postgres alone: any number of worker processes claim due
// deliveries (FOR UPDATE SKIP LOCKED, with a lease), POST the signed event, and record the outcome. Redis
// plays no part, so losing it loses nothing; a worker that dies mid-request leaves its claim to fall due
// again when the lease runs out. A failed attempt is retried with exponential backoff until the delivery's
// retry window ends. The event id never changes between attempts or redeliveries: receivers deduplicate on it.
import type { Db, NotificationListener } from "@recall/db";
import { CHANNELS, withoutTenant } from "@recall/db";
import { webhookDeliveries, webhookDeliveryDuration, webhooksDisabled, type Logger } from "@recall/telemetry";
import { webhookBackoffMs, type WebhookRetry } from "./backoff";
import { claimDue, pruneDeliveries, recordDelivered, recordFailed, type ClaimedDelivery, type Outcome } from "./delivery-store";
import { sendRequest } from "./send-request";
import { EVENT_ID_HEADER, SIGNATURE_HEADER, signedWith } from "./signature";
import { AddressPolicy, parseWebhookUrl } from "./url-guard";
import { WakeLoop } from "../wake-loop";

export interface WebhookDispatcherOptions {
  db: Db;
  logger: Logger;
  listener?: NotificationListener;
  allowedNetworks: readonly string[];
  timeoutMs: number;
  retry: WebhookRetry;
  disableAfterMs: number;
  pollMs: number;
  concurrency: number;
  /** Finished deliveries, and events none refers to, are deleted this long after they were written. */
  retentionMs: number;
}

/** How often a dispatcher prunes (each worker process's own; pruning twice is harmless). */
const PRUNE_EVERY_MS = 10 * 60_000;

/** The body every attempt of a delivery sends, byte for byte the same: a redelivery can be deduplicated. */
export function eventBody(claim: Pick<ClaimedDelivery, "event_id" | "type" | "created_at" | "context_id" | "data">): string {
  return JSON.stringify({
    id: claim.event_id,
    type: claim.type,
    created_at: claim.created_at.toISOString(),
    context_id: claim.context_id,
    data: claim.data,
  });
}

export class WebhookDispatcher {
  private readonly loop: WakeLoop;
  private readonly policy: AddressPolicy;
  private unlisten: (() => void) | undefined;
  private lastPrune = 0;

  constructor(private readonly options: WebhookDispatcherOptions) {
    this.policy = new AddressPolicy(options.allowedNetworks);
    this.loop = new WakeLoop(() => this.tick(), options.pollMs);
  }

  start(): void {
    this.unlisten = this.options.listener?.on(CHANNELS.webhooks, () => this.loop.kick());
    this.loop.start();
  }

  async stop(): Promise<void> {
    this.unlisten?.();
    await this.loop.stop();
  }

  /** Sends every due delivery (of every context), `concurrency` at a time; answers how many it attempted. */
  drain = (): Promise<number> => withoutTenant("webhook-delivery", () => this.deliverDue());

  private async deliverDue(): Promise<number> {
    const { db, concurrency, timeoutMs, retry } = this.options;
    // The lease outlasts the request's own time limit and the outcome's write.
    const leaseMs = timeoutMs * 2 + 5_000;
    let attempted = 0;
    for (;;) {
      const claims = await claimDue(db, concurrency, leaseMs, retry.forMs);
      await Promise.all(claims.map((c) => this.deliver(c)));
      attempted += claims.length;
      if (claims.length < concurrency) return attempted;
    }
  }

  private async tick(): Promise<void> {
    try {
      await this.drain();
      if (Date.now() - this.lastPrune > PRUNE_EVERY_MS) {
        this.lastPrune = Date.now();
        await withoutTenant("webhook-delivery", () => pruneDeliveries(this.options.db, this.options.retentionMs));
      }
    } catch (err) {
      this.options.logger.error({ err: (err as Error).message }, "webhook dispatch failed");
    }
  }

  private async deliver(claim: ClaimedDelivery): Promise<void> {
    const started = performance.now();
    const outcome = await this.attempt(claim);
    const ok = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
    let label: "delivered" | "retrying" | "failed" = "delivered";
    if (ok) await recordDelivered(this.options.db, claim, outcome);
    else {
      const retryIn = webhookBackoffMs(claim.attempts, this.options.retry);
      const recorded = await recordFailed(this.options.db, claim, outcome, retryIn, this.options.disableAfterMs);
      label = recorded.givenUp ? "failed" : "retrying";
      if (recorded.disabled) {
        webhooksDisabled.inc();
        this.options.logger.warn({ webhookId: claim.webhook_id }, "webhook disabled: its endpoint kept failing");
      }
    }
    webhookDeliveries.inc({ outcome: label });
    webhookDeliveryDuration.observe({ outcome: label }, (performance.now() - started) / 1_000);
  }

  private async attempt(claim: ClaimedDelivery): Promise<Outcome> {
    const body = eventBody(claim);
    const t = Math.floor(Date.now() / 1_000);
    try {
      const sent = await sendRequest({
        url: parseWebhookUrl(claim.url),
        body,
        timeoutMs: this.options.timeoutMs,
        policy: this.policy,
        headers: {
          [SIGNATURE_HEADER]: signedWith(claim.previous_secret ? [claim.secret, claim.previous_secret] : [claim.secret], t, body),
          [EVENT_ID_HEADER]: claim.event_id,
          "Recall-Event-Type": claim.type,
          "user-agent": "Recall-Webhooks/1",
        },
      });
      return { statusCode: sent.status, error: sent.status >= 300 ? `answered ${sent.status}` : null, response: sent.snippet || null };
    } catch (err) {
      return { statusCode: null, error: (err as Error).message.slice(0, 300), response: null };
    }
  }
}
