// Work-item bookkeeping: one row per stage and subject, one attempt record per try.
import { transaction, type Db, type DbOrTx, type ErrorClass, type Prisma, type WorkItem } from "@recall/db";
import { AbandonedAttemptError } from "./errors";
import { QUEUES, type QueueName, type SubjectType } from "./registry";

export interface NewWorkItem {
  contextId: string;
  queue: QueueName;
  subjectType: SubjectType;
  subjectId: string;
  traceId: string;
  /** Work nobody waits for (priority.ts): its jobs go behind interactive ones, at every stage. */
  background?: boolean;
}

/** Creates the stage's work item, or returns the existing one (a subject has one per stage). */
export async function ensureWorkItem(db: DbOrTx, item: NewWorkItem): Promise<WorkItem> {
  const { background, ...fields } = item;
  return db.workItem.upsert({
    where: { queue_subjectType_subjectId: { queue: item.queue, subjectType: item.subjectType, subjectId: item.subjectId } },
    create: { ...fields, maxAttempts: QUEUES[item.queue].attempts, ...(background ? { payload: { background: true } } : {}) },
    update: {},
  });
}

/**
 * Starts attempt `attempt` of the item; undefined when an operator cancelled it meanwhile (a
 * worker that picked up its job before the job was removed then runs nothing), or when it was
 * handed to an extraction window meanwhile (a second run would put the turn in a second window).
 */
export async function markRunning(
  db: Db,
  workItemId: string,
  attempt: number,
  traceId?: string,
): Promise<{ attemptId: string } | undefined> {
  const now = new Date();
  // One transaction: a worker killed right after claiming the item must still leave its attempt on record.
  return transaction(db, async (tx) => {
    // Never a succeeded item (a duplicate delivery that read it before another run finished must not reopen
    // it), nor one handed to a window (its window finishes it).
    const claimed = await tx.workItem.updateMany({
      where: { id: workItemId, status: { notIn: ["cancelled", "succeeded", "waiting"] } },
      data: { status: "running", attempts: attempt, startedAt: now, finishedAt: null },
    });
    if (claimed.count === 0) return undefined;
    // BullMQ runs a stalled job (its worker died) again: the attempt that worker left open is over.
    const interrupted = new AbandonedAttemptError(
      `attempt ${attempt} started while this one was open (its worker stopped, or lost the database mid-attempt)`,
    );
    await closeOpenAttempts(tx, { workItemId, attempt: { lt: attempt } }, "failed", interrupted, now);
    const record = await tx.workAttempt.upsert({
      where: { workItemId_attempt: { workItemId, attempt } },
      create: { workItemId, attempt, status: "running", startedAt: now, traceId },
      update: { status: "running", startedAt: now, finishedAt: null, errorClass: null, errorMessage: null, traceId },
    });
    return { attemptId: record.id };
  });
}

export interface Outcome {
  status: "succeeded" | "failed" | "dead";
  errorClass?: ErrorClass;
  errorMessage?: string;
  tokensUsed?: number;
  wallMs: number;
}

/**
 * Closes the attempt and records the outcome on the item; false when another run of the same item
 * (a duplicate delivery) already succeeded: a success is never overwritten, by a late failure or by
 * a second success (whose caller must then not chain the next stage again).
 */
export async function recordOutcome(db: DbOrTx, workItemId: string, attemptId: string, outcome: Outcome): Promise<boolean> {
  const finishedAt = new Date();
  const tokens = outcome.tokensUsed ?? 0;
  await db.workAttempt.update({
    where: { id: attemptId },
    data: {
      status: outcome.status,
      errorClass: outcome.errorClass ?? null,
      errorMessage: outcome.errorMessage ?? null,
      tokensUsed: tokens,
      wallMs: outcome.wallMs,
      finishedAt,
    },
  });
  const recorded = await db.workItem.updateMany({
    where: { id: workItemId, status: { not: "succeeded" } },
    data: {
      status: outcome.status,
      errorClass: outcome.errorClass ?? null,
      errorMessage: outcome.errorMessage ?? null,
      tokensUsed: { increment: tokens },
      wallMsUsed: { increment: outcome.wallMs },
      finishedAt,
    },
  });
  if (recorded.count === 0) {
    // Still count what this run spent: the tokens were paid for.
    await db.workItem.update({
      where: { id: workItemId },
      data: { tokensUsed: { increment: tokens }, wallMsUsed: { increment: outcome.wallMs } },
    });
  }
  return recorded.count > 0;
}

/**
 * Takes back a `running` item whose process died: closes its open attempt records as abandoned and
 * moves it to `queued` (to run again) or `dead` (for an operator to retry). Only while it is still the
 * attempt the caller saw, so of two sweepers, or a sweeper and a late outcome, one wins; returns whether
 * this call did.
 */
export async function abandonRunning(db: Db, item: WorkItem, status: "queued" | "dead", err: AbandonedAttemptError): Promise<boolean> {
  const finishedAt = new Date();
  return transaction(db, async (tx) => {
    const claimed = await tx.workItem.updateMany({
      where: { id: item.id, status: "running", attempts: item.attempts, startedAt: item.startedAt },
      data: { status, errorClass: err.errorClass, errorMessage: err.message, finishedAt: status === "dead" ? finishedAt : null },
    });
    if (claimed.count === 0) return false;
    await closeOpenAttempts(tx, { workItemId: item.id }, status === "dead" ? "dead" : "failed", err, finishedAt);
    return true;
  });
}

/**
 * A shutting-down worker gives the item back (see HandBackError): its attempt ends as abandoned and the item is
 * `queued` again for whichever worker takes the job next. Only while it is still running.
 */
export async function handBack(db: Db, workItemId: string, attemptId: string, err: AbandonedAttemptError, wallMs: number): Promise<void> {
  const finishedAt = new Date();
  await transaction(db, async (tx) => {
    await tx.workAttempt.update({
      where: { id: attemptId },
      data: { status: "failed", errorClass: err.errorClass, errorMessage: err.message, wallMs, finishedAt },
    });
    await tx.workItem.updateMany({
      where: { id: workItemId, status: "running" },
      data: { status: "queued", errorClass: err.errorClass, errorMessage: err.message, wallMsUsed: { increment: wallMs } },
    });
  });
}

async function closeOpenAttempts(
  db: DbOrTx,
  where: Prisma.WorkAttemptWhereInput,
  status: "failed" | "dead",
  err: AbandonedAttemptError,
  finishedAt: Date,
): Promise<void> {
  await db.workAttempt.updateMany({
    where: { ...where, status: "running" },
    data: { status, errorClass: err.errorClass, errorMessage: err.message, finishedAt },
  });
}
