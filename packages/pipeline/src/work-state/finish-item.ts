// Finish: one statement records a successful attempt (the attempt closed, the item succeeded,
// what it cost added up, the stage's result on its payload) and creates the next stage's item,
// or, finding that item finished before, resets it to run again (an operator re-extracted: the new
// output is its new input). A success is never overwritten: when another run of the item
// succeeded first, this one only adds what it spent and chains nothing. A stage's own writes
// (candidates, facts, the outbox row) go in the same transaction, and only for the first success.
import { Prisma, transaction, type Db, type DbOrTx, type Tx, type WorkItem, type WorkStatus } from "@recall/db";
import { QUEUES } from "../registry";
import { startingPayload, startingStatus, type NewWorkItem } from "./create-items";
import { itemColumns, jsonb } from "./item-row";

export interface StageOutput {
  /** The stage's result on its item: merged into the payload, or (`replace`) in place of it. */
  value: Record<string, unknown>;
  replace?: boolean;
}

export interface Success {
  workItemId: string;
  attemptId: string;
  tokensUsed?: number;
  wallMs: number;
  result?: StageOutput;
  /** The next stage's item, created (or reset to run again) with the success. */
  next?: NewWorkItem;
  /**
   * The next stage has nothing to do (truth maintenance of a commit that wrote no facts): its item is
   * created finished, with this result, and no job runs for it.
   */
  nextDone?: StageOutput;
  /** `awaiting_model`: the stage did its part (the rules' reading) and the rest waits for a model; default succeeded. */
  status?: FinishedStatus;
}

/** How a stage run can end well: done, or done as far as it can go without a model (it still chains its successor). */
export type FinishedStatus = "succeeded" | "awaiting_model";

/**
 * A finished successor run again (an operator re-extracted, or extracted again once a model was set): it starts from its
 * new input, so the checkpoint of its last run (truth maintenance applied) and the group it ran with are dropped; the
 * group of this run, if any, comes with its starting payload.
 */
/**
 * A result that replaces the payload keeps the span the item was created under (item-trace.ts): an item retried
 * after it finished (one awaiting a model, a re-extraction) is published under that span, which was exported.
 */
const KEPT_TRACE = Prisma.sql`(CASE WHEN w.payload ? 'trace' THEN jsonb_build_object('trace', w.payload->'trace') ELSE '{}'::jsonb END)`;
const RERUN_PAYLOAD = Prisma.sql`(w.payload - 'truth_maintained_at' - 'window_id' - 'batch_id')`;

/** A run of the item ended well before: a later delivery of the same run changes nothing. */
const DONE = Prisma.sql`t.status IN ('succeeded', 'awaiting_model')`;

export interface NextItem {
  item: WorkItem;
  /** It had finished (or failed, or was cancelled) before: its old job must give way to a new one. */
  rerun: boolean;
  /** Created by this finish (it did not exist before). */
  created: boolean;
}

export interface Finished {
  /** This run is the item's success (false: another run had succeeded first; nothing was chained or written). */
  first: boolean;
  next?: NextItem;
}

/** Records the success; with `write`, the stage's writes and the success commit together. */
export async function finishWorkItem(db: Db, success: Success, write?: (tx: Tx) => Promise<void>): Promise<Finished> {
  if (!write) return finishInTransaction(db, success);
  return transaction(
    db,
    async (tx) => {
      const finished = await finishInTransaction(tx, success);
      if (!finished.first) return finished;
      await write(tx);
      await stampAfterWrites(tx, success.workItemId, finished.next?.created ? finished.next.item.id : undefined);
      return finished;
    },
    { timeoutMs: 60_000 },
  );
}

/**
 * The finish statement runs before the stage's writes, so its `now()` (the transaction's start) would date the item's
 * end and its successor's start before those writes: the stage's run would leave them out and the next stage's wait
 * would hold them (a commit's writes showed as truth maintenance's wait). Stamped again once the writes are done,
 * the item finished, and its successor was created, when the transaction is about to commit.
 */
async function stampAfterWrites(tx: Tx, workItemId: string, nextId: string | undefined): Promise<void> {
  await tx.$executeRaw`
    UPDATE work_items SET
      finished_at = CASE WHEN id = ${workItemId}::uuid THEN clock_timestamp() ELSE finished_at END,
      created_at = CASE WHEN id = ${nextId ?? null}::uuid THEN clock_timestamp() ELSE created_at END
    WHERE id = ${workItemId}::uuid OR id = ${nextId ?? null}::uuid`;
}

type FinishRow = WorkItem & { first: boolean; priorNext: WorkStatus | null };

/** The finish statement alone, in the caller's transaction (a window's stage finishes each of its turns so). */
export async function finishInTransaction(db: DbOrTx, success: Success): Promise<Finished> {
  const [row] = await db.$queryRaw<FinishRow[]>(finishSql(success));
  if (!row) throw new Error(`work item ${success.workItemId} does not exist`);
  const { first, priorNext, ...next } = row;
  if (!first || next.id === null) return { first };
  return { first, next: nextItemOf(next, priorNext) };
}

/**
 * `finishInTransaction` for many items of one stage (the turns of a group) in one statement, each as that would
 * finish it alone: its attempt closed, the item finished (succeeded, or awaiting a model) unless a run of it had
 * succeeded first, and then only its successor created (or, found finished before, reset as there). Every `next` is
 * of the same queue. Answers each item's outcome as `finishInTransaction` does, by work item id.
 */
export async function finishManyInTransaction(tx: Tx, successes: readonly Success[]): Promise<Map<string, Finished>> {
  if (successes.length === 0) return new Map();
  const queues = new Set(successes.flatMap((s) => (s.next ? [s.next.queue] : [])));
  if (queues.size > 1) throw new Error(`one finish for successors in ${[...queues].join(", ")}`);
  const [nextQueue] = [...queues];
  const column = <T>(f: (s: Success) => T) => successes.map(f);
  const start = (s: Success) => (s.nextDone ? "succeeded" : s.next ? startingStatus(s.next) : null);
  const keep = Prisma.sql`w.status IN ('queued', 'running', 'waiting')`;
  const done = DONE;
  const rows = await tx.$queryRaw<ManyRow[]>`
    WITH input AS (
      SELECT * FROM unnest(
        ${column((s) => s.workItemId)}::uuid[], ${column((s) => s.attemptId)}::uuid[], ${column((s) => s.tokensUsed ?? 0)}::int[],
        ${column((s) => s.wallMs)}::int[], ${column((s) => (s.result ? JSON.stringify(s.result.value) : null))}::jsonb[],
        ${column((s) => s.result?.replace ?? false)}::boolean[], ${column((s) => s.next?.contextId ?? null)}::uuid[],
        ${column((s) => s.next?.subjectType ?? null)}::text[], ${column((s) => s.next?.subjectId ?? null)}::uuid[],
        ${column((s) => s.next?.traceId ?? null)}::text[], ${column((s) => (s.next ? JSON.stringify(startingPayload(s.next)) : null))}::jsonb[],
        ${column((s) => JSON.stringify(s.nextDone?.value ?? {}))}::jsonb[], ${column(start)}::text[],
        ${column((s) => s.status ?? "succeeded")}::text[]
      ) AS i(id, attempt_id, tokens, wall_ms, result, replace, next_context, next_subject_type, next_subject, next_trace, next_payload, next_result, next_status, status)
    ), target AS (
      SELECT w.id, w.status FROM work_items w WHERE w.id IN (SELECT id FROM input) ORDER BY w.id FOR UPDATE
    ), closed AS (
      UPDATE work_attempts a SET status = i.status::"WorkStatus", error_class = NULL, error_message = NULL, tokens_used = i.tokens,
        wall_ms = i.wall_ms, finished_at = now()
      FROM input i WHERE a.id = i.attempt_id
    ), item AS (
      UPDATE work_items w SET
        status = CASE WHEN ${done} THEN w.status ELSE i.status::"WorkStatus" END,
        error_class = CASE WHEN ${done} THEN w.error_class END,
        error_message = CASE WHEN ${done} THEN w.error_message END,
        finished_at = CASE WHEN ${done} THEN w.finished_at ELSE now() END,
        payload = CASE WHEN ${done} OR i.result IS NULL THEN w.payload WHEN i.replace THEN i.result || ${KEPT_TRACE} ELSE w.payload || i.result END,
        tokens_used = w.tokens_used + i.tokens, wall_ms_used = w.wall_ms_used + i.wall_ms
      FROM target t JOIN input i ON i.id = t.id WHERE w.id = t.id
      RETURNING w.id, NOT ${done} AS first
    ), chained AS (
      SELECT i.* FROM item JOIN input i ON i.id = item.id WHERE item.first AND i.next_status IS NOT NULL
    ), prior AS (
      SELECT w.subject_type, w.subject_id, w.status FROM work_items w JOIN chained c
        ON w.queue = ${nextQueue ?? null} AND w.subject_type = c.next_subject_type AND w.subject_id = c.next_subject
    ), reset AS (
      UPDATE work_items w SET
        status = CASE WHEN ${keep} THEN w.status ELSE c.next_status::"WorkStatus" END,
        error_class = CASE WHEN ${keep} THEN w.error_class END,
        error_message = CASE WHEN ${keep} THEN w.error_message END,
        finished_at = CASE WHEN ${keep} THEN w.finished_at WHEN c.next_status = 'succeeded' THEN now() END,
        payload = CASE WHEN ${keep} THEN w.payload ELSE ${RERUN_PAYLOAD} || c.next_payload || c.next_result END
      FROM chained c WHERE w.queue = ${nextQueue ?? null} AND w.subject_type = c.next_subject_type AND w.subject_id = c.next_subject
      RETURNING ${itemColumns("w")}
    ), created AS (
      INSERT INTO work_items (id, context_id, queue, subject_type, subject_id, trace_id, max_attempts, payload, status, finished_at)
      SELECT gen_random_uuid(), c.next_context, ${nextQueue ?? null}, c.next_subject_type, c.next_subject, c.next_trace,
        ${nextQueue ? QUEUES[nextQueue].attempts : 0}, c.next_payload || c.next_result, c.next_status::"WorkStatus",
        CASE WHEN c.next_status = 'succeeded' THEN now() END
      FROM chained c
      WHERE NOT EXISTS (SELECT 1 FROM work_items w WHERE w.queue = ${nextQueue ?? null} AND w.subject_type = c.next_subject_type AND w.subject_id = c.next_subject)
      ON CONFLICT (queue, subject_type, subject_id) DO NOTHING
      RETURNING ${itemColumns("work_items")}
    ), nexts AS (
      SELECT * FROM reset UNION ALL SELECT * FROM created
    )
    SELECT item.id AS "finishedId", item.first, p.status::text AS "priorNext", n.*
    FROM item JOIN input i ON i.id = item.id
    LEFT JOIN nexts n ON item.first AND n."subjectType" = i.next_subject_type AND n."subjectId" = i.next_subject
    LEFT JOIN prior p ON n.id IS NOT NULL AND p.subject_type = i.next_subject_type AND p.subject_id = i.next_subject`;
  return new Map(
    rows.map(({ finishedId, first, priorNext, ...next }) => {
      if (!first || next.id === null) return [finishedId, { first }];
      return [finishedId, { first, next: nextItemOf(next, priorNext) }];
    }),
  );
}

type ManyRow = WorkItem & { finishedId: string; first: boolean; priorNext: WorkStatus | null };

/** The successor as a finish answers it: whether it ran before (its old job must give way) and whether it is new. */
function nextItemOf(item: WorkItem, priorNext: WorkStatus | null): NextItem {
  const kept = priorNext === null || priorNext === "queued" || priorNext === "running" || priorNext === "waiting";
  return { item, rerun: !kept, created: priorNext === null };
}

/** The item's columns as a success sets them, unless `done` (another run succeeded first): then as they were. */
function succeededUnless(done: Prisma.Sql, status: FinishedStatus): Prisma.Sql {
  return Prisma.sql`status = CASE WHEN ${done} THEN w.status ELSE ${status}::"WorkStatus" END,
        error_class = CASE WHEN ${done} THEN w.error_class END,
        error_message = CASE WHEN ${done} THEN w.error_message END,
        finished_at = CASE WHEN ${done} THEN w.finished_at ELSE now() END`;
}

function payloadUpdate(result: StageOutput | undefined): Prisma.Sql {
  if (!result) return Prisma.sql`w.payload`;
  return result.replace ? Prisma.sql`${jsonb(result.value)} || ${KEPT_TRACE}` : Prisma.sql`w.payload || ${jsonb(result.value)}`;
}

function finishSql(s: Success): Prisma.Sql {
  const tokens = s.tokensUsed ?? 0;
  const done = DONE;
  return Prisma.sql`
    WITH target AS (
      SELECT id, status FROM work_items WHERE id = ${s.workItemId}::uuid FOR UPDATE
    ), closed AS (
      UPDATE work_attempts SET status = ${s.status ?? "succeeded"}::"WorkStatus", error_class = NULL, error_message = NULL, tokens_used = ${tokens},
        wall_ms = ${s.wallMs}, finished_at = now()
      WHERE id = ${s.attemptId}::uuid
    ), item AS (
      UPDATE work_items w SET
        ${succeededUnless(done, s.status ?? "succeeded")},
        payload = CASE WHEN ${done} THEN w.payload ELSE ${payloadUpdate(s.result)} END,
        tokens_used = w.tokens_used + ${tokens}, wall_ms_used = w.wall_ms_used + ${s.wallMs}
      FROM target t WHERE w.id = t.id
      RETURNING NOT ${done} AS first
    )${s.next ? nextSql(s.next, s.nextDone) : Prisma.empty}
    SELECT item.first, ${s.next ? Prisma.sql`(SELECT status::text FROM prior) AS "priorNext", ${itemColumns("n")}` : Prisma.sql`NULL AS "priorNext", NULL AS id`}
    FROM item ${s.next ? Prisma.sql`LEFT JOIN next n ON true` : Prisma.empty}`;
}

/** The successor's upsert, only when this run is the first success; `prior` is its status before. */
function nextSql(next: NewWorkItem, done: StageOutput | undefined): Prisma.Sql {
  const keep = Prisma.sql`w.status IN ('queued', 'running', 'waiting')`;
  const start = done ? "succeeded" : startingStatus(next);
  const status = Prisma.sql`${start}::"WorkStatus"`;
  const finishedAt = done ? Prisma.sql`now()` : Prisma.sql`NULL::timestamptz`;
  const result = jsonb(done?.value ?? {});
  return Prisma.sql`, prior AS (
      SELECT status FROM work_items WHERE queue = ${next.queue} AND subject_type = ${next.subjectType} AND subject_id = ${next.subjectId}::uuid
    ), next AS (
      INSERT INTO work_items AS w (id, context_id, queue, subject_type, subject_id, trace_id, max_attempts, payload, status, finished_at)
      SELECT gen_random_uuid(), ${next.contextId}::uuid, ${next.queue}, ${next.subjectType}, ${next.subjectId}::uuid, ${next.traceId},
        ${QUEUES[next.queue].attempts}, ${jsonb(startingPayload(next))} || ${result}, ${status}, ${finishedAt}
      FROM item WHERE item.first
      ON CONFLICT (queue, subject_type, subject_id) DO UPDATE SET
        status = CASE WHEN ${keep} THEN w.status ELSE ${status} END,
        error_class = CASE WHEN ${keep} THEN w.error_class END,
        error_message = CASE WHEN ${keep} THEN w.error_message END,
        finished_at = CASE WHEN ${keep} THEN w.finished_at ELSE ${finishedAt} END,
        payload = CASE WHEN ${keep} THEN w.payload ELSE ${RERUN_PAYLOAD} || ${jsonb(startingPayload(next))} || ${result} END
      RETURNING w.*
    )`;
}
