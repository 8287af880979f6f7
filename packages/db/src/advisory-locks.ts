// Every advisory lock the service takes, by kind. A key is its kind and the ids it covers joined by `|`
// (`entity|<context id>|<identity key>`), hashed into Postgres's 64-bit lock space by hashtextextended(key, 0):
// one shape for every kind, so two kinds never share a key. Each lock is a transaction's, released when it ends.
import type { Prisma } from "./generated/client";

/** Each kind, and the parts of its key in order. */
interface LockKinds {
  /** A work item's commit: its second run finds the first's outbox row (memory write/commit.ts). */
  commit: [workItemId: string];
  /** A document's bytes in a context: the same upload stored once (api document.service.ts). */
  document: [contextId: string, contentHash: string];
  /** A document's versions and their reviews: one of a rejection and a commit retires the old version (memory review-versions.ts). */
  "document-versions": [documentId: string];
  /** An identity key in a context: two commits never create the same entity (memory entity-resolver.ts). */
  entity: [contextId: string, identityKey: string];
  /** A context's erasures (shared) against an import's batches (exclusive) (memory erasure-lock.ts). */
  erasure: [contextId: string];
  /** The pipeline's retention: one process compacts at a time, the others skip their turn (pipeline retention/). */
  retention: [];
  /** A fact group, truth maintenance's unit (memory fact-store.ts). */
  facts: [contextId: string, factKind: string, subjectId: string, key: string];
  /** A source's retraction (exclusive) against its commits (shared) (memory source-lock.ts). */
  retract: [sourceId: string];
  /** A scope pair: an erasure by scope (exclusive) against the writers of inputs under it (shared) (memory scope-lock.ts). */
  scope: [contextId: string, pair: string];
  /** A document source: one new version at a time finds the latest and replaces it (api document.service.ts). */
  source: [sourceId: string];
  /** A context's webhooks, counted against their cap (api webhook.service.ts). */
  webhooks: [contextId: string];
  /** A session's extraction windows: a turn joins exactly one (worker window-assembler.ts). */
  window: [sessionId: string];
}

type LockKind = keyof LockKinds;
type LockMode = "exclusive" | "shared";

/** The key of one lock of `kind`, from the parts LockKinds names. */
export function lockKey<K extends LockKind>(kind: K, ...parts: LockKinds[K]): string {
  return [kind, ...parts].join("|");
}

/** Holds the lock until the transaction ends. */
export async function holdLock(tx: Prisma.TransactionClient, key: string, mode: LockMode = "exclusive"): Promise<void> {
  if (mode === "shared") await tx.$executeRaw`SELECT pg_advisory_xact_lock_shared(hashtextextended(${key}, 0))`;
  else await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`;
}

/** Takes the lock until the transaction ends if no one holds it; answers whether it did, without waiting. */
export async function tryLock(tx: Prisma.TransactionClient, key: string): Promise<boolean> {
  const [row] = await tx.$queryRaw<{ taken: boolean }[]>`SELECT pg_try_advisory_xact_lock(hashtextextended(${key}, 0)) AS taken`;
  return row?.taken === true;
}

/** Holds several locks of different kinds in one statement, in the order given (each as holdLock would). */
export async function holdLocks(tx: Prisma.TransactionClient, locks: readonly { key: string; mode: LockMode }[]): Promise<void> {
  await tx.$executeRaw`
    SELECT CASE WHEN m = 'shared' THEN pg_advisory_xact_lock_shared(hashtextextended(k, 0)) ELSE pg_advisory_xact_lock(hashtextextended(k, 0)) END
    FROM (SELECT k, m FROM unnest(${locks.map((l) => l.key)}::text[], ${locks.map((l) => l.mode)}::text[]) WITH ORDINALITY AS t(k, m, n) ORDER BY n) ordered`;
}

/** Holds several in one statement, in the order of their hashes, as every taker of them must so none deadlock. */
export async function holdLocksByHash(tx: Prisma.TransactionClient, keys: readonly string[], mode: LockMode): Promise<void> {
  if (keys.length === 0) return;
  const names = [...keys];
  if (mode === "shared") {
    await tx.$executeRaw`
      SELECT pg_advisory_xact_lock_shared(h)
      FROM (SELECT DISTINCT hashtextextended(k, 0) AS h FROM unnest(${names}::text[]) k ORDER BY 1) ordered`;
  } else {
    await tx.$executeRaw`
      SELECT pg_advisory_xact_lock(h)
      FROM (SELECT DISTINCT hashtextextended(k, 0) AS h FROM unnest(${names}::text[]) k ORDER BY 1) ordered`;
  }
}
