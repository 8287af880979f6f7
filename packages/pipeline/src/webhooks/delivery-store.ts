// The dispatcher's writes to webhook_deliveries and webhooks: claim due deliveries (a lease pushes
// next_attempt_at ahead, so a claim whose worker died falls due again), and record each outcome. A failure
// that leaves the endpoint failing past WEBHOOK_DISABLE_AFTER_MS disables it and writes webhook.disabled,
// in one transaction.
import { transaction, type Db } from "@recall/db";

export interface ClaimedDelivery {
  id: string;
  attempts: number;
  give_up_at: Date;
  webhook_id: string;
  url: string;
  secret: string;
  /** The secret before a rotation, while its grace period lasts: it signs beside the new one. */
  previous_secret: string | null;
  event_id: string;
  type: string;
  context_id: string;
  data: unknown;
  created_at: Date;
}

export interface Outcome {
  statusCode: number | null;
  error: string | null;
  response: string | null;
}

export async function claimDue(db: Db, limit: number, leaseMs: number, retryForMs: number): Promise<ClaimedDelivery[]> {
  return db.$queryRaw<ClaimedDelivery[]>`
    WITH due AS (
      SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
      WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND w.disabled_at IS NULL
      ORDER BY d.next_attempt_at LIMIT ${limit} FOR UPDATE OF d SKIP LOCKED
    )
    UPDATE webhook_deliveries d SET attempts = d.attempts + 1, last_attempt_at = now(),
      next_attempt_at = now() + ${leaseMs} * interval '1 millisecond',
      give_up_at = coalesce(d.give_up_at, now() + ${retryForMs} * interval '1 millisecond')
    FROM due, webhooks w, webhook_events e
    WHERE d.id = due.id AND w.id = d.webhook_id AND e.id = d.event_id
    RETURNING d.id, d.attempts, d.give_up_at, w.id AS webhook_id, w.url, w.secret,
      CASE WHEN w.previous_secret_until > now() THEN w.previous_secret END AS previous_secret, e.id AS event_id, e.type, e.context_id,
      e.data, e.created_at`;
}

export async function recordDelivered(db: Db, claim: ClaimedDelivery, outcome: Outcome): Promise<void> {
  await transaction(db, async (tx) => {
    await tx.webhookDelivery.update({
      where: { id: claim.id },
      data: {
        status: "delivered",
        deliveredAt: new Date(),
        nextAttemptAt: new Date(),
        lastStatusCode: outcome.statusCode,
        lastError: null,
        lastResponse: outcome.response,
      },
    });
    await tx.webhook.updateMany({ where: { id: claim.webhook_id, failingSince: { not: null } }, data: { failingSince: null } });
  });
}

/** Answers whether the delivery was given up, and whether this failure disabled the webhook. */
export async function recordFailed(
  db: Db,
  claim: ClaimedDelivery,
  outcome: Outcome,
  retryInMs: number,
  disableAfterMs: number,
): Promise<{ givenUp: boolean; disabled: boolean }> {
  return transaction(db, async (tx) => {
    const nextAttemptAt = new Date(Date.now() + retryInMs);
    const givenUp = nextAttemptAt > claim.give_up_at;
    await tx.webhookDelivery.update({
      where: { id: claim.id },
      data: {
        status: givenUp ? "failed" : "pending",
        nextAttemptAt,
        lastStatusCode: outcome.statusCode,
        lastError: outcome.error,
        lastResponse: outcome.response,
      },
    });
    const [hook] = await tx.$queryRaw<{ failing_since: Date }[]>`
      UPDATE webhooks SET failing_since = coalesce(failing_since, now()) WHERE id = ${claim.webhook_id}::uuid AND disabled_at IS NULL
      RETURNING failing_since`;
    if (!hook || Date.now() - hook.failing_since.getTime() < disableAfterMs) return { givenUp, disabled: false };
    await tx.webhook.update({ where: { id: claim.webhook_id }, data: { disabledAt: new Date() } });
    await tx.$queryRaw`SELECT recall_webhook_emit(${claim.context_id}::uuid, 'webhook.disabled',
      jsonb_build_object('webhook_id', ${claim.webhook_id}::text, 'failing_since', ${hook.failing_since.toISOString()}::text))::text`;
    return { givenUp, disabled: true };
  });
}

/**
 * Deletes finished deliveries (delivered or failed) older than `olderThanMs`, then events no delivery
 * refers to any more, up to `limit` rows each; answers how many deliveries went.
 */
export async function pruneDeliveries(db: Db, olderThanMs: number, limit = 5_000): Promise<number> {
  const deliveries = await db.$executeRaw`
    DELETE FROM webhook_deliveries WHERE id IN (
      SELECT id FROM webhook_deliveries
      WHERE status IN ('delivered', 'failed') AND created_at < now() - ${olderThanMs} * interval '1 millisecond'
      LIMIT ${limit})`;
  await db.$executeRaw`
    DELETE FROM webhook_events WHERE id IN (
      SELECT e.id FROM webhook_events e
      WHERE e.created_at < now() - ${olderThanMs} * interval '1 millisecond'
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)
      LIMIT ${limit})`;
  return deliveries;
}
