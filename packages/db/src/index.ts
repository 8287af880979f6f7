// One Prisma module: client factory, transaction helper, error predicates.
// The client talks to Postgres through the pg driver adapter (no native engine).
import { PrismaPg } from "@prisma/adapter-pg";
import { Pool, type PoolClient } from "pg";
import { Prisma, PrismaClient } from "./generated/client";
import { currentScope, noteBypass, type BypassReason, type TenantScope } from "./tenancy";

export * from "./generated/client";
export { Prisma, PrismaClient };
export * from "./advisory-locks";
export * from "./notification-listener";
export * from "./tenancy";
export * from "./read-replicas";
export * from "./unavailable";

export type Db = PrismaClient;
export type Tx = Prisma.TransactionClient;
export type DbOrTx = Db | Tx;

export interface DbOptions {
  databaseUrl: string;
  /** Pool size per process; workers and the API each keep their own pool. */
  poolMax?: number;
  /**
   * The role every connection switches to (SET ROLE), one that row-level security holds (not a superuser,
   * no BYPASSRLS); created by the migrations. null: stay the connecting user (a superuser then sees every row).
   */
  serviceRole?: string | null;
  /**
   * What a query outside withTenant/withoutTenant sees: "deny" (no row of any context; the API and workers)
   * or "bypass" (every row; package tests that exercise logic, not tenancy).
   */
  unscoped?: "deny" | "bypass";
}

export const SERVICE_ROLE = "recall_service";

/** The service role a process's config names (RECALL_DB_ROLE); `none` keeps the connecting user. */
export function serviceRoleOf(config: { RECALL_DB_ROLE: string }): string | null {
  return config.RECALL_DB_ROLE === "none" ? null : config.RECALL_DB_ROLE;
}

export function createDb({ databaseUrl, poolMax = 10, serviceRole = SERVICE_ROLE, unscoped = "deny" }: DbOptions): Db {
  const pool = new Pool({ connectionString: databaseUrl, max: poolMax });
  // Whoever holds a pooled connection listens for its errors only while it holds it; an error that lands on a
  // connection between holders (Postgres shutting down sends every backend a FATAL) would be an unhandled 'error'
  // event and end the process (the soak's Postgres restarts did that to a worker). The connection marks itself
  // unusable either way, the pool drops it, and whoever uses it next gets the error; so here it only needs a listener.
  pool.on("connect", (client) => client.on("error", () => undefined));
  releaseLostTransactionClients(pool);
  applyTenantScope(pool, { serviceRole, unscoped });
  const adapter = new PrismaPg(pool, { disposeExternalPool: true });
  return new PrismaClient({ adapter });
}

/**
 * The pg driver adapter holds a pooled client for each interactive transaction and releases it on
 * COMMIT or ROLLBACK; when the connection dies mid-transaction (Postgres restarted, a network cut)
 * the ROLLBACK fails and the client is never released. Each outage would leak one for good, until
 * the pool is exhausted and every query waits forever (and disconnecting waits too). So a client
 * checked out by `connect()` is released, and destroyed, the moment its connection errors or ends;
 * the adapter's own release afterwards is a no-op.
 */
function releaseLostTransactionClients(pool: Pool): void {
  const connect = pool.connect.bind(pool) as (callback?: unknown) => Promise<PoolClient> | undefined;
  // The callback form is pg-pool's own (pool.query), which releases on every error itself.
  const patched = (callback?: unknown) => (callback ? connect(callback) : connect()!.then(releaseOnLoss));
  pool.connect = patched as Pool["connect"];
}

function releaseOnLoss(client: PoolClient): PoolClient {
  const release = client.release;
  let released = false;
  const releaseOnce = (err?: Error | boolean) => {
    if (released) return;
    released = true;
    client.removeListener("error", lost);
    client.removeListener("end", ended);
    release(err);
  };
  const lost = (err: Error) => releaseOnce(err);
  const ended = () => releaseOnce(new Error("connection ended"));
  client.on("error", lost);
  client.on("end", ended);
  client.release = releaseOnce;
  return client;
}

type ScopeOptions = Required<Pick<DbOptions, "serviceRole" | "unscoped">>;
type Connect = (callback?: (err: Error | undefined, client?: PoolClient, done?: unknown) => void) => Promise<PoolClient> | undefined;

/**
 * Hands out each connection as the role and with the context setting row-level security reads (role,
 * recall.context_id) for the scope of the caller. The scope is read when connect() is called: pg-pool
 * answers queued callers from another async context. A connection remembers what it was last set to,
 * so a process serving one context (or one kind of work) pays no extra round trip in the steady state.
 * Both forms are covered: the promise form (the adapter's transactions) and the callback form (pool.query).
 */
function applyTenantScope(pool: Pool, options: ScopeOptions): void {
  const connect = pool.connect.bind(pool) as Connect;
  const applied = new WeakMap<PoolClient, string>();
  const prepare = async (client: PoolClient, settings: string[]): Promise<PoolClient> => {
    const key = settings.join("|");
    if (applied.get(client) === key) return client;
    applied.delete(client);
    await client.query(SET_SCOPE, settings);
    applied.set(client, key);
    return client;
  };
  const patched: Connect = (callback) => {
    const settings = scopeSettings(currentScope(), options);
    if (!callback) return connect()!.then((client) => prepare(client, settings).catch(releaseAndThrow(client)));
    return connect((err, client, done) => {
      if (err || !client) return callback(err, client, done);
      prepare(client, settings).then(
        () => callback(undefined, client, done),
        (failed: Error) => {
          client.release(failed);
          callback(failed);
        },
      );
    });
  };
  pool.connect = patched as Pool["connect"];
}

/**
 * The role the audited cross-context paths work as (migration 20261206030000_policies_by_role): every table has a
 * policy for it that shows every row, so the service role's own policy needs no bypass branch, and Postgres checks
 * that one once per statement instead of on every row.
 */
export const BYPASS_ROLE = "recall_bypass";

const SET_SCOPE = "SELECT set_config('role', $1, false), set_config('recall.context_id', $2, false)";

/** [role, context id] for a scope; '' context as the service role sees no row of any context. */
function scopeSettings(scope: TenantScope | undefined, { serviceRole, unscoped }: ScopeOptions): string[] {
  const tenantRole = serviceRole ?? "none";
  // With the policies off (serviceRole null: the connecting user) a bypass stays that user too.
  const bypassRole = serviceRole === null ? "none" : BYPASS_ROLE;
  if (!scope) return [unscoped === "bypass" ? bypassRole : tenantRole, ""];
  if (scope.kind === "tenant") return [tenantRole, scope.contextId];
  return [scope.kind === "owner" ? "none" : bypassRole, ""];
}

function releaseAndThrow(client: PoolClient) {
  return (err: Error): never => {
    client.release(err);
    throw err;
  };
}

/**
 * A value for a JSON column. Prisma's input type cannot express "any JSON-serialisable
 * object", so the one cast lives here; callers pass values typed by their contract schema.
 */
export function toJson(value: object): Prisma.InputJsonValue {
  return value as Prisma.InputJsonValue;
}

const SERIALIZATION_FAILURE = "P2034";
const UNIQUE_VIOLATION = "P2002";

function prismaCode(err: unknown): string | undefined {
  return err instanceof Prisma.PrismaClientKnownRequestError ? err.code : undefined;
}

/**
 * A unique violation; with `constraint`, only one of that constraint (its Postgres name,
 * e.g. "turns_session_id_seq_key"), so a retry loop never swallows a different conflict.
 */
export function isUniqueConstraintError(err: unknown, constraint?: string): boolean {
  if (prismaCode(err) !== UNIQUE_VIOLATION) return false;
  return constraint === undefined || violatedConstraint(err) === constraint;
}

/** The constraint name Postgres reported, as the pg driver adapter passes it on. */
function violatedConstraint(err: unknown): string | undefined {
  const meta = (err as Prisma.PrismaClientKnownRequestError).meta as { driverAdapterError?: { cause?: { originalMessage?: string } } };
  return /unique constraint "([^"]+)"/.exec(meta?.driverAdapterError?.cause?.originalMessage ?? "")?.[1];
}

export interface TransactionOptions {
  isolationLevel?: Prisma.TransactionIsolationLevel;
  maxRetries?: number;
  timeoutMs?: number;
}

/** Runs fn in one transaction, retrying serialization failures and deadlocks with a short jittered wait. */
export async function transaction<T>(db: Db, fn: (tx: Tx) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
  const { isolationLevel, maxRetries = 3, timeoutMs = 30_000 } = options;
  for (let attempt = 0; ; attempt++) {
    try {
      return await db.$transaction(fn, { isolationLevel, timeout: timeoutMs, maxWait: timeoutMs });
    } catch (err) {
      const retryable = prismaCode(err) === SERIALIZATION_FAILURE || /deadlock detected|could not serialize/i.test(String(err));
      if (!retryable || attempt >= maxRetries) throw err;
      await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** attempt + Math.random() * 20));
    }
  }
}

/**
 * Inside a transaction that serves one context, statements that must see every context's rows (an import refusing
 * ids that are another context's: under the policies it would see none of them and refuse nothing). The bypass role
 * holds for fn's statements only; the transaction's own role is put back after them, and is gone at its end anyway.
 */
export async function bypassWithin<T>(tx: Tx, reason: BypassReason, fn: () => Promise<T>): Promise<T> {
  noteBypass(reason);
  const [before] = await tx.$queryRaw<{ role: string }[]>`SELECT current_setting('role') AS role`;
  await tx.$queryRaw`SELECT set_config('role', ${BYPASS_ROLE}, true)`;
  try {
    return await fn();
  } finally {
    await tx.$queryRaw`SELECT set_config('role', ${before?.role ?? "none"}, true)`;
  }
}
