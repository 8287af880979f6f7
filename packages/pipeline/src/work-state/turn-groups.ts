// Turns whose stage runs as one job for a group of them. A window's later stages (validate, commit, truth
// maintenance) run as one job per stage for the whole window; a history import's extraction runs as one job for the
// whole batch, and so do the later stages of the turns the rules finished in it. Each turn keeps its own item per
// stage, `waiting` with its group's id (`window_id` or `batch_id` on its payload) until the group's job of that stage
// claims it (all of them in one statement) and finishes it; a turn whose stage fails inside the group's job leaves
// the group and runs alone, with its own job and retries, and when the group's job gives up for good every turn still
// in it does. Nothing is dropped.
import { kindOf } from "@recall/contracts";
import { Prisma, type DbOrTx, type ErrorClass, type Tx, type WorkItem } from "@recall/db";
import { ClaimedPlan, ClaimedSubject, attemptsOfClaimed } from "./claim-item";
import { itemColumns } from "./item-row";

/** The later stages: each turn's item of these queues may wait for its window's (or batch's) job. */
export const WINDOW_STAGES: readonly string[] = ["validate_artifacts", "commit_artifacts", "truth_maintenance"];

/** A group of turns: an extraction window, or a batch (a history import, a turn_batches row). */
export interface GroupRef {
  kind: "window" | "batch";
  id: string;
}

export interface WindowTurnClaim {
  item: WorkItem;
  attemptId: string;
  turn: NonNullable<ClaimedSubject["turn"]>;
  plan: ClaimedPlan | null;
}

type WindowTurnRow = WorkItem & { attemptId: string; turn: unknown; plan: unknown };

/** The payload key that names a turn's group. */
export function groupKey(kind: GroupRef["kind"]): "window_id" | "batch_id" {
  return kind === "window" ? "window_id" : "batch_id";
}

/** A query answering the ids of the group's turns (a window lists them; a batch is a range of its session). */
function members({ kind, id }: GroupRef): Prisma.Sql {
  return kind === "window"
    ? Prisma.sql`SELECT unnest(turn_ids) FROM extraction_windows WHERE id = ${id}::uuid`
    : batchTurns(Prisma.sql`${id}::uuid`);
}

/** A query answering the ids of the turns of the batch `batchId` names (a parameter, or a column of the caller's query). */
export function batchTurns(batchId: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`SELECT tu.id FROM turn_batches b JOIN turns tu ON tu.session_id = b.session_id
    AND tu.seq BETWEEN b.first_seq AND b.last_seq WHERE b.id = ${batchId}`;
}

/** The group's turn items of `queue` still waiting for (or held by) its job. */
function heldBy(queue: string, group: GroupRef): Prisma.Sql {
  return Prisma.sql`w.queue = ${queue} AND w.subject_type = 'turn' AND w.subject_id = ANY(${members(group)})
    AND w.payload->>${groupKey(group.kind)}::text = ${group.id} AND w.status IN ('waiting', 'running')`;
}

/**
 * Claims the group's turns waiting for its `queue` stage (or left running by an interrupted attempt of the group's
 * job, whose attempt is then closed as abandoned), in session order.
 */
export async function claimGroupTurns(tx: Tx, queue: string, group: GroupRef, traceId: string | null): Promise<WindowTurnClaim[]> {
  const rows = await tx.$queryRaw<WindowTurnRow[]>`
    WITH claimed AS (
      UPDATE work_items w SET status = 'running', attempts = w.attempts + 1, started_at = now(), finished_at = NULL
      WHERE ${heldBy(queue, group)}
      RETURNING w.*
    )${attemptsOfClaimed(traceId, `its ${group.kind}'s worker`)}
    SELECT ${itemColumns("c")}, o.id AS "attemptId",
      json_build_object('id', tu.id, 'contextId', tu.context_id, 'sessionId', tu.session_id, 'seq', tu.seq, 'role', tu.role,
        'speaker', tu.speaker, 'content', tu.content, 'attachmentText', tu.attachment_text, 'scope', recall_scope(tu.scope_set_id), 'occurredAt', tu.occurred_at, 'traceId', tu.trace_id,
        'createdAt', tu.created_at) AS turn,
      CASE WHEN p.id IS NULL THEN NULL ELSE json_build_object('skillId', p.skill_id, 'skillSource', p.skill_source,
        'purpose', p.purpose, 'purposeSource', p.purpose_source, 'trace', p.trace) END AS plan
    FROM claimed c JOIN opened o ON o.work_item_id = c.id
    JOIN turns tu ON tu.id = c.subject_id
    LEFT JOIN extraction_plans p ON p.subject_type = 'turn' AND p.subject_id = c.subject_id
    ORDER BY tu.seq`;
  const turnOf = ClaimedSubject.shape.turn.unwrap();
  return rows.map(({ attemptId, turn, plan, ...item }) => ({
    item,
    attemptId,
    turn: turnOf.parse(turn),
    plan: plan === null ? null : ClaimedPlan.parse(plan),
  }));
}

/**
 * A turn whose stage failed inside its group's job (or that the group hands on: a batch's turn naming someone two
 * known entities fit) leaves the group: its attempt is closed with why and it is queued to run alone (its own job,
 * its own retries: the attempts its group's jobs spent on it, which were the group's to count, do not shorten them).
 * A null class is no error (the item keeps none). Answers the item to enqueue.
 */
export async function leaveGroup(
  tx: DbOrTx,
  kind: GroupRef["kind"],
  claim: Pick<WindowTurnClaim, "item" | "attemptId">,
  error: { errorClass: ErrorClass | null; message: string },
): Promise<WorkItem | undefined> {
  const { errorClass, message } = error;
  const [row] = await tx.$queryRaw<WorkItem[]>`
    WITH closed AS (
      UPDATE work_attempts SET status = 'failed', error_class = ${errorClass}::"ErrorClass", error_message = ${message}, finished_at = now()
      WHERE id = ${claim.attemptId}::uuid
    )
    UPDATE work_items w SET status = 'queued', payload = w.payload - ${groupKey(kind)}::text, error_class = ${errorClass}::"ErrorClass",
      error_message = ${errorClass ? message : null}, max_attempts = w.attempts + w.max_attempts
    WHERE id = ${claim.item.id}::uuid
    RETURNING ${itemColumns("w")}`;
  // Undefined when an erasure deleted the turn and its items while the group's job ran (docs/erasure.md).
  return row;
}

/**
 * The group's job of `queue` gave up for good: every turn still waiting for (or held by) it runs alone, queued
 * with its own job and its own full number of tries; an attempt the job left open is closed with its error.
 * Answers the items to enqueue.
 */
export async function releaseGroupTurns(db: DbOrTx, queue: string, group: GroupRef, message: string): Promise<WorkItem[]> {
  return db.$queryRaw<WorkItem[]>`
    WITH items AS (
      UPDATE work_items w SET status = 'queued', payload = w.payload - ${groupKey(group.kind)}::text, finished_at = NULL,
        max_attempts = w.attempts + w.max_attempts
      WHERE ${heldBy(queue, group)}
      RETURNING w.*
    ), closed AS (
      UPDATE work_attempts a SET status = 'failed', error_class = 'internal', error_message = ${message}, finished_at = now()
      FROM items WHERE a.work_item_id = items.id AND a.status = 'running'
    )
    SELECT ${itemColumns("items")} FROM items`;
}

/**
 * The group whose job runs a turn's item, if any (the sweeper asks that job, not the turn's): a batch's for its
 * extraction and later stages, a window's for its later stages (its extraction waits for the window's model call).
 */
export function groupOf(item: Pick<WorkItem, "queue" | "subjectType" | "payload">): GroupRef | undefined {
  if (!kindOf(item.subjectType).groupable) return undefined;
  const payload = item.payload as Record<string, unknown> | null;
  const [windowId, batchId] = [payload?.["window_id"], payload?.["batch_id"]];
  const later = WINDOW_STAGES.includes(item.queue);
  if (later && typeof windowId === "string") return { kind: "window", id: windowId };
  if ((later || item.queue === "extract_assertions") && typeof batchId === "string") return { kind: "batch", id: batchId };
  return undefined;
}
