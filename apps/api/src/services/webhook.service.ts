// A context's webhooks (docs/webhooks.md): registered with a URL that passes the address policy (no
// private, loopback or link-local host unless WEBHOOK_ALLOWED_NETWORKS allows it), at most
// WEBHOOK_MAX_PER_CONTEXT of them (counted under a per-context lock, so two registrations racing for the
// last place cannot both get it); the signing secret is answered only on creation and rotation. Every
// lookup is by context and id together, so another context's webhook is simply not found.
import { DomainError, invalidField, notFound } from "@recall/contracts";
import type { Config } from "@recall/config";
import { holdLock, lockKey, transaction, type Db, type Webhook, type WebhookDelivery } from "@recall/db";
import { AddressPolicy, WebhookUrlError, checkWebhookUrl, newWebhookSecret } from "@recall/pipeline";

export interface NewWebhook {
  url: string;
  events: string[];
  description?: string;
}

export interface Position {
  k: string | number;
  id: string;
}

export type DeliveryRow = WebhookDelivery & { event: { type: string } };

export class WebhookService {
  private readonly policy: AddressPolicy;

  constructor(private readonly deps: { db: Db; config: Pick<Config, "WEBHOOK_ALLOWED_NETWORKS" | "WEBHOOK_MAX_PER_CONTEXT"> }) {
    this.policy = new AddressPolicy(deps.config.WEBHOOK_ALLOWED_NETWORKS);
  }

  async create(contextId: string, input: NewWebhook): Promise<Webhook> {
    const url = await this.checkUrl(input.url);
    const max = this.deps.config.WEBHOOK_MAX_PER_CONTEXT;
    return transaction(this.deps.db, async (tx) => {
      await holdLock(tx, lockKey("webhooks", contextId));
      if ((await tx.webhook.count({ where: { contextId } })) >= max) {
        throw new DomainError("conflict", `a context may have at most ${max} webhooks; delete one first`);
      }
      return tx.webhook.create({
        data: {
          contextId,
          url: url.toString(),
          events: [...new Set(input.events)],
          description: input.description,
          secret: newWebhookSecret(),
        },
      });
    });
  }

  list(contextId: string): Promise<Webhook[]> {
    return this.deps.db.webhook.findMany({ where: { contextId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
  }

  async get(contextId: string, webhookId: string): Promise<Webhook> {
    const hook = await this.deps.db.webhook.findFirst({ where: { id: webhookId, contextId } });
    if (!hook) throw notFound("webhook");
    return hook;
  }

  /** Deletes the webhook and its deliveries (pending ones are not sent); answers it as it was. */
  async remove(contextId: string, webhookId: string): Promise<Webhook> {
    const hook = await this.get(contextId, webhookId);
    // Conditional on the row still being there: of two deletes racing, the second answers 404.
    const { count } = await this.deps.db.webhook.deleteMany({ where: { id: webhookId, contextId } });
    if (count === 0) throw notFound("webhook");
    return hook;
  }

  /**
   * A new secret, used from the next attempt on. With `keepOldForSeconds`, the old one signs beside it until then
   * (each request carries both signatures), so receivers can switch without refusing a delivery; otherwise it stops
   * at once. One statement: the old secret kept is the one this rotation replaced, however rotations race.
   */
  async rotateSecret(contextId: string, webhookId: string, keepOldForSeconds = 0): Promise<Webhook> {
    const keep = keepOldForSeconds > 0;
    const count = await this.deps.db.$executeRaw`
      UPDATE webhooks SET previous_secret = CASE WHEN ${keep} THEN secret END,
        previous_secret_until = CASE WHEN ${keep} THEN now() + ${keepOldForSeconds} * interval '1 second' END,
        secret = ${newWebhookSecret()}
      WHERE id = ${webhookId}::uuid AND context_id = ${contextId}::uuid`;
    if (count === 0) throw notFound("webhook");
    return this.get(contextId, webhookId);
  }

  /**
   * A disabled webhook takes events again, its failure clock reset. Deliveries left pending when it was disabled are
   * tried again; events written while it was disabled were never kept for it.
   */
  async enable(contextId: string, webhookId: string): Promise<Webhook> {
    const { count } = await this.deps.db.webhook.updateMany({
      where: { id: webhookId, contextId },
      data: { disabledAt: null, failingSince: null },
    });
    if (count === 0) throw notFound("webhook");
    await this.deps.db.webhookDelivery.updateMany({
      where: { webhookId, status: "pending" },
      data: { nextAttemptAt: new Date(), giveUpAt: null },
    });
    return this.get(contextId, webhookId);
  }

  /** Newest first; `limit + 1` rows, so the caller knows whether a next page exists. */
  async deliveries(contextId: string, webhookId: string, limit: number, before?: Position): Promise<DeliveryRow[]> {
    await this.get(contextId, webhookId);
    const at = before && new Date(String(before.k));
    return this.deps.db.webhookDelivery.findMany({
      where: { webhookId, ...(at && before ? { OR: [{ createdAt: { lt: at } }, { createdAt: at, id: { lt: before.id } }] } : {}) },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: limit + 1,
      include: { event: { select: { type: true } } },
    });
  }

  /**
   * Sends the delivery again as soon as a worker is free, with the same event id and body, and retries
   * it for another full window if it fails. A disabled webhook's deliveries are not redelivered (409).
   */
  async redeliver(contextId: string, webhookId: string, deliveryId: string): Promise<DeliveryRow> {
    const hook = await this.get(contextId, webhookId);
    if (hook.disabledAt)
      throw new DomainError("conflict", `webhook ${webhookId} is disabled; enable it first (POST …/webhooks/{id}/enable)`);
    const { count } = await this.deps.db.webhookDelivery.updateMany({
      where: { id: deliveryId, webhookId },
      data: { status: "pending", nextAttemptAt: new Date(), giveUpAt: null },
    });
    if (count === 0) throw notFound("delivery");
    return this.deps.db.webhookDelivery.findUniqueOrThrow({ where: { id: deliveryId }, include: { event: { select: { type: true } } } });
  }

  private async checkUrl(text: string): Promise<URL> {
    try {
      return await checkWebhookUrl(text, this.policy);
    } catch (err) {
      if (err instanceof WebhookUrlError) throw invalidField("body.url", err.message);
      throw err;
    }
  }
}
