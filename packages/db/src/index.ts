// One Prisma module: client factory, transaction helper, error predicates.
// The client talks to Postgres through the pg driver adapter (no native engine).
import { PrismaPg } from "@prisma/adapter-pg";
import { Prisma, PrismaClient } from "./generated/client";

export * from "./generated/client";
export { Prisma, PrismaClient };
export * from "./notification-listener";

export type Db = PrismaClient;
export type Tx = Prisma.TransactionClient;
export type DbOrTx = Db | Tx;

export interface DbOptions {
  databaseUrl: string;
  /** Pool size per process; workers and the API each keep their own pool. */
  poolMax?: number;
}

export function createDb({ databaseUrl, poolMax = 10 }: DbOptions): Db {
  const adapter = new PrismaPg({ connectionString: databaseUrl, max: poolMax });
  return new PrismaClient({ adapter });
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
