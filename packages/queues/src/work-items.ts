// Work-item bookkeeping: one row per stage and subject, one attempt record per try.
import type { DbOrTx, ErrorClass, WorkItem } from "@recall/db";
import { QUEUES, type QueueName, type SubjectType } from "./registry";

export interface NewWorkItem {
  contextId: string;
  queue: QueueName;
  subjectType: SubjectType;
  subjectId: string;
  traceId: string;
}

/** Creates the stage's work item, or returns the existing one (a subject has one per stage). */
export async function ensureWorkItem(db: DbOrTx, item: NewWorkItem): Promise<WorkItem> {
  return db.workItem.upsert({
    where: { queue_subjectType_subjectId: { queue: item.queue, subjectType: item.subjectType, subjectId: item.subjectId } },
    create: { ...item, maxAttempts: QUEUES[item.queue].attempts },
    update: {},
  });
}

export async function markRunning(db: DbOrTx, workItemId: string, attempt: number): Promise<{ attemptId: string }> {
  const now = new Date();
  await db.workItem.update({
    where: { id: workItemId },
    data: { status: "running", attempts: attempt, startedAt: now, finishedAt: null },
  });
  const record = await db.workAttempt.upsert({
    where: { workItemId_attempt: { workItemId, attempt } },
    create: { workItemId, attempt, status: "running", startedAt: now },
    update: { status: "running", startedAt: now, finishedAt: null, errorClass: null, errorMessage: null },
  });
  return { attemptId: record.id };
}

export interface Outcome {
  status: "succeeded" | "failed" | "dead";
  errorClass?: ErrorClass;
  errorMessage?: string;
  tokensUsed?: number;
  wallMs: number;
}

export async function recordOutcome(db: DbOrTx, workItemId: string, attemptId: string, outcome: Outcome): Promise<void> {
  const finishedAt = new Date();
  const tokens = outcome.tokensUsed ?? 0;
  await db.workAttempt.update({
    where: { id: attemptId },
    data: {
      status: outcome.status,
      errorClass: outcome.errorClass ?? null,
      errorMessage: outcome.errorMessage ?? null,
      tokensUsed: tokens,
      finishedAt,
    },
  });
  await db.workItem.update({
    where: { id: workItemId },
    data: {
      status: outcome.status,
      errorClass: outcome.errorClass ?? null,
      errorMessage: outcome.errorMessage ?? null,
      tokensUsed: { increment: tokens },
      wallMsUsed: { increment: outcome.wallMs },
      finishedAt,
    },
  });
}
