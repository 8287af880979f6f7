// Which context's rows a piece of work may see, held by Postgres row-level security (docs/security.md).
// The scope lives in AsyncLocalStorage; the pool (index.ts) writes it into each connection it hands out
// as its role (recall_service, or recall_bypass for a bypass) and the setting `recall.context_id`, which
// every table's policy reads.
import { AsyncLocalStorage } from "node:async_hooks";

/**
 * The few paths that serve no single context, named so each bypass is greppable and counted. Add a
 * reason here (and to docs/security.md) rather than reusing one that does not describe the path.
 */
export type BypassReason =
  | "admin"
  | "api-key-lookup"
  | "dashboard"
  | "health"
  | "metrics"
  | "sweeper"
  | "outbox-relay"
  | "webhook-delivery"
  /** Compaction of finished pipeline records past RECALL_PIPELINE_RETENTION_DAYS, across contexts. */
  | "pipeline-retention"
  | "startup"
  | "test-fixture"
  /** An import's check, inside its context's transaction, that no id it carries is another context's row. */
  | "import-reference-check";

export type TenantScope =
  | { readonly kind: "tenant"; readonly contextId: string }
  | { readonly kind: "bypass"; readonly reason: BypassReason }
  /** Runs as the connecting user (the schema's owner), for DDL and server functions; no role switch. */
  | { readonly kind: "owner"; readonly reason: BypassReason };

const storage = new AsyncLocalStorage<TenantScope>();
const bypasses = new Map<BypassReason, number>();

/** Runs fn (and everything it starts) as one context: queries see and write that context's rows only. */
export function withTenant<T>(contextId: string, fn: () => T): T {
  return runIn({ kind: "tenant", contextId }, fn);
}

/** The audited way around row-level security, for work that spans contexts (sweepers, relays, admin). */
export function withoutTenant<T>(reason: BypassReason, fn: () => T): T {
  bypasses.set(reason, (bypasses.get(reason) ?? 0) + 1);
  return runIn({ kind: "bypass", reason }, fn);
}

/** Counts a bypass taken inside a transaction (index.ts, bypassWithin), which switches the role itself. */
export function noteBypass(reason: BypassReason): void {
  bypasses.set(reason, (bypasses.get(reason) ?? 0) + 1);
}

/** As withoutTenant, and as the connecting user rather than the service role: only for DDL and server functions. */
export function asOwner<T>(reason: BypassReason, fn: () => T): T {
  bypasses.set(reason, (bypasses.get(reason) ?? 0) + 1);
  return runIn({ kind: "owner", reason }, fn);
}

/**
 * A Prisma query is lazy: it runs when awaited. `withTenant(id, () => db.x.findMany())` would otherwise run it
 * wherever the caller awaits, outside the scope; so a thenable result is started here, inside it.
 */
function runIn<T>(scope: TenantScope, fn: () => T): T {
  return storage.run(scope, () => {
    const result = fn();
    return isThenable(result) ? (result.then((value) => value) as T) : result;
  });
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

export function currentScope(): TenantScope | undefined {
  return storage.getStore();
}

/** How many times each bypass was entered since the process started (exported on /metrics). */
export function bypassCounts(): ReadonlyMap<BypassReason, number> {
  return bypasses;
}
