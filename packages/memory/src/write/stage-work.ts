// Work-item rows for stages this package runs in-process (direct writes validate,
// commit and apply truth maintenance synchronously, without a queue). They are the
// same rows the queue workers keep, so status, provenance and operator retries see a
// direct write like any turn or document. packages/queues owns the queue side; this
// package may only import db (see ARCHITECTURE.md), hence the small overlap.
import { stageResult } from "@recall/contracts";
import type { DbOrTx, ErrorClass, Tx, WorkItem } from "@recall/db";

type StageQueue = "validate_artifacts" | "commit_artifacts" | "truth_maintenance";

/**
 * Attempts a worker may make when it picks one of these items up later (an operator
 * retry, or the sweeper recovering an item whose caller died); the same numbers as
 * the queue registry in packages/queues/src/registry.ts.
 */
const MAX_ATTEMPTS: Record<StageQueue, number> = { validate_artifacts: 3, commit_artifacts: 5, truth_maintenance: 5 };

export interface StageItemRef {
  contextId: string;
  queue: StageQueue;
  subjectType: string;
  subjectId: string;
  traceId: string;
}

export async function ensureStageItem(db: DbOrTx, ref: StageItemRef): Promise<WorkItem> {
  const { contextId, queue, subjectType, subjectId, traceId } = ref;
  return db.workItem.upsert({
    where: { queue_subjectType_subjectId: { queue, subjectType, subjectId } },
    create: { contextId, queue, subjectType, subjectId, traceId, maxAttempts: MAX_ATTEMPTS[queue] },
    update: {},
  });
}

/** Runs fn as one attempt of the item, leaving the item and its attempt record as a worker would. */
export async function runStageAttempt<T>(db: DbOrTx, item: WorkItem, fn: () => Promise<T>): Promise<T> {
  const attempt = item.attempts + 1;
  const startedAt = new Date();
  await db.workItem.update({ where: { id: item.id }, data: { status: "running", attempts: attempt, startedAt, finishedAt: null } });
  const record = await db.workAttempt.create({ data: { workItemId: item.id, attempt, status: "running", startedAt } });
  try {
    const result = await fn();
    await finish(db, item.id, record.id, startedAt, { status: "succeeded" });
    return result;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // Nothing retries an in-process stage by itself: it is dead until an operator retries it.
    await finish(db, item.id, record.id, startedAt, { status: "dead", errorClass: "internal", errorMessage: message });
    throw err;
  }
}

interface Finish {
  status: "succeeded" | "dead";
  errorClass?: ErrorClass;
  errorMessage?: string;
}

async function finish(db: DbOrTx, workItemId: string, attemptId: string, startedAt: Date, outcome: Finish): Promise<void> {
  const finishedAt = new Date();
  const data = { status: outcome.status, errorClass: outcome.errorClass ?? null, errorMessage: outcome.errorMessage ?? null, finishedAt };
  await db.workAttempt.update({ where: { id: attemptId }, data });
  await db.workItem.update({
    where: { id: workItemId },
    data: { ...data, wallMsUsed: { increment: finishedAt.getTime() - startedAt.getTime() } },
  });
}

/**
 * A truth_maintenance work item has two steps: truth maintenance, then embedding what was
 * committed. The first is checkpointed in the item's payload, inside its own transaction,
 * so a retry after the embedding provider failed only embeds; the checkpoint is kept
 * across operator retries, which start again from the same item.
 */
export async function markTruthMaintained(tx: Tx, workItemId: string): Promise<void> {
  await tx.$executeRaw`UPDATE work_items SET payload = payload || jsonb_build_object('truth_maintained_at', now()) WHERE id = ${workItemId}::uuid`;
}

export function truthMaintained(item: WorkItem): boolean {
  return stageResult("truth_maintenance", item.payload).truth_maintained_at !== undefined;
}
