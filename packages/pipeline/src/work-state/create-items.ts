// Creating work items: a subject's first stage at ingest (a turn, a batch of turns, a
// document), and a stage found or created by whoever hands work on. A subject has one item
// per stage (unique queue, subject type and id), so creating it twice finds the first.
import { Prisma, type DbOrTx, type WorkItem } from "@recall/db";
import { creatorTrace } from "../item-trace";
import { isBackground } from "../priority";
import { QUEUES, type QueueName, type SubjectType } from "../registry";
import { itemColumns, jsonb } from "./item-row";

export interface NewWorkItem {
  contextId: string;
  queue: QueueName;
  subjectType: SubjectType;
  subjectId: string;
  traceId: string;
  /** Work nobody waits for (priority.ts): its jobs go behind interactive ones, at every stage. */
  background?: boolean;
  /** What the item starts with on its payload (a turn's extraction mode). */
  payload?: Record<string, unknown>;
  /** Created `waiting`: the job of its group's stage (a window, a batch) runs it (turn-groups.ts), not a job of its own. */
  waiting?: boolean;
}

function initialPayload(item: NewWorkItem): Record<string, unknown> {
  const trace = creatorTrace(item.traceId);
  return { ...(item.background ? { background: true } : {}), ...(trace ? { trace } : {}), ...item.payload };
}

/** Creates the stage's work item, or returns the existing one, in one statement. */
export async function ensureWorkItem(db: DbOrTx, item: NewWorkItem): Promise<WorkItem> {
  const [row] = await db.$queryRaw<WorkItem[]>`
    INSERT INTO work_items AS w (id, context_id, queue, subject_type, subject_id, trace_id, max_attempts, payload, status)
    VALUES (gen_random_uuid(), ${item.contextId}::uuid, ${item.queue}, ${item.subjectType}, ${item.subjectId}::uuid,
            ${item.traceId}, ${QUEUES[item.queue].attempts}, ${jsonb(initialPayload(item))}, ${startingStatus(item)}::"WorkStatus")
    ON CONFLICT (queue, subject_type, subject_id) DO UPDATE SET subject_type = w.subject_type
    RETURNING ${itemColumns("w")}`;
  return row!;
}

/** Creates the first items of many new subjects at once (a batch of turns): one statement, in the caller's transaction. */
export async function createWorkItems(db: DbOrTx, items: readonly NewWorkItem[]): Promise<WorkItem[]> {
  if (items.length === 0) return [];
  const values = items.map(
    (i) => Prisma.sql`(gen_random_uuid(), ${i.contextId}::uuid, ${i.queue}, ${i.subjectType}, ${i.subjectId}::uuid, ${i.traceId},
      ${QUEUES[i.queue].attempts}, ${jsonb(initialPayload(i))}, ${startingStatus(i)}::"WorkStatus")`,
  );
  return db.$queryRaw<WorkItem[]>`
    INSERT INTO work_items AS w (id, context_id, queue, subject_type, subject_id, trace_id, max_attempts, payload, status)
    VALUES ${Prisma.join(values)}
    RETURNING ${itemColumns("w")}`;
}

/** The item that follows `item` in queue `next`: same subject and trace, background if it was. */
export function successorOf(
  item: Pick<WorkItem, "contextId" | "subjectType" | "subjectId" | "traceId" | "payload">,
  next: QueueName,
): NewWorkItem {
  return {
    contextId: item.contextId,
    queue: next,
    subjectType: item.subjectType as SubjectType,
    subjectId: item.subjectId,
    traceId: item.traceId,
    background: isBackground(item),
  };
}

/** `waiting` for an item its window's job runs, else `queued`. */
export function startingStatus(item: NewWorkItem): "waiting" | "queued" {
  return item.waiting ? "waiting" : "queued";
}

/** The payload a new item of this description starts with (shared with the statements that create successors). */
export function startingPayload(item: NewWorkItem): Record<string, unknown> {
  return initialPayload(item);
}
