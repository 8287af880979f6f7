import type { ApiDeps } from "../deps";
import { IdempotencyGuard } from "./idempotency-guard";

/**
 * A turn answers within TURN_TIMEOUT_MS, so a duplicate waits that long for the first answer; a claim
 * is presumed dead only well after any request could still be running.
 */
export function idempotencyGuard(deps: ApiDeps): IdempotencyGuard {
  const { IDEMPOTENCY_RETENTION_HOURS, TURN_TIMEOUT_MS } = deps.config;
  return new IdempotencyGuard(deps.db, deps.logger, {
    retentionMs: Math.round(IDEMPOTENCY_RETENTION_HOURS * 3_600_000),
    waitMs: TURN_TIMEOUT_MS + 5_000,
    leaseMs: TURN_TIMEOUT_MS + 60_000,
  });
}
