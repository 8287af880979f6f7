// The later stages of a window's turns (validate, commit, truth maintenance) run as one job per
// stage for the whole window. Each turn keeps its own item per stage, `waiting` with the window's
// id until the window's job claims it (all of them in one statement) and finishes it; a turn whose
// stage fails inside the window's job leaves the window and runs alone, with its own job and retries,
// and when the window's job gives up for good every turn still in it does. Nothing is dropped.
import { Prisma, type DbOrTx, type ErrorClass, type Tx, type WorkItem } from "@recall/db";
import { ClaimedPlan, ClaimedSubject, attemptsOfClaimed } from "./claim-item";
import { itemColumns } from "./item-row";

/** The window's stages: each turn's item of these queues may wait for its window's job. */
export const WINDOW_STAGES: readonly string[] = ["validate_artifacts", "commit_artifacts", "truth_maintenance"];

export interface WindowTurnClaim {
  item: WorkItem;
  attemptId: string;
  turn: NonNullable<ClaimedSubject["turn"]>;
  plan: ClaimedPlan | null;
}

type WindowTurnRow = WorkItem & { attemptId: string; turn: unknown; plan: unknown };

/**
 * Claims the turns of window `windowId` waiting for its `queue` stage (or left running by an
 * interrupted attempt of the window's job, whose attempt is then closed as abandoned), in session order.
 */
export function claimWindowTurns(tx: Tx, queue: string, windowId: string, traceId: string | null): Promise<WindowTurnClaim[]> {
  return claimGroupTurns(
    tx,
    { queue, key: "window_id", groupId: windowId, members: windowTurns(windowId), holder: "its window's worker" },
    traceId,
  );
}

const windowTurns = (windowId: string) => Prisma.sql`SELECT unnest(turn_ids) FROM extraction_windows WHERE id = ${windowId}::uuid`;

/** Turns whose items of one queue wait for one job of their group (a window, a batch): `key` on their payload names it. */
export interface TurnGroup {
  queue: string;
  key: "window_id" | "batch_id";
  groupId: string;
  /** A query answering the ids of the group's turns. */
  members: Prisma.Sql;
  /** Who holds the turns, for the abandoned attempts' message. */
  holder: string;
}

const groupMember = (g: TurnGroup) => Prisma.sql`w.queue = ${g.queue} AND w.subject_type = 'turn' AND w.subject_id = ANY(${g.members})
  AND w.payload->>${g.key}::text = ${g.groupId} AND w.status IN ('waiting', 'running')`;

/** Claims the group's turns for its job, in session order (see claimWindowTurns). */
export async function claimGroupTurns(tx: Tx, group: TurnGroup, traceId: string | null): Promise<WindowTurnClaim[]> {
  const rows = await tx.$queryRaw<WindowTurnRow[]>`
    WITH claimed AS (
      UPDATE work_items w SET status = 'running', attempts = w.attempts + 1, started_at = now(), finished_at = NULL
      WHERE ${groupMember(group)}
      RETURNING w.*
    )${attemptsOfClaimed(traceId, group.holder)}
    SELECT ${itemColumns("c")}, o.id AS "attemptId",
      json_build_object('id', tu.id, 'contextId', tu.context_id, 'sessionId', tu.session_id, 'seq', tu.seq, 'role', tu.role,
        'speaker', tu.speaker, 'content', tu.content, 'scope', tu.scope, 'occurredAt', tu.occurred_at, 'traceId', tu.trace_id,
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
 * A turn whose stage failed inside its window's job leaves the window: its attempt is closed with the
 * error and it is queued to run alone (its own job, its own retries: the attempts its window's jobs spent on it,
 * which were the window's to count, do not shorten them). Answers the item to enqueue.
 */
export function leaveWindow(
  tx: DbOrTx,
  claim: Pick<WindowTurnClaim, "item" | "attemptId">,
  error: { errorClass: ErrorClass | null; message: string },
): Promise<WorkItem | undefined> {
  return leaveGroup(tx, "window_id", claim, error);
}

/** A turn leaves its group (`key` on its payload names it) to run alone, as leaveWindow tells; a null class closes its attempt without an error class. */
export async function leaveGroup(
  tx: DbOrTx,
  key: TurnGroup["key"],
  claim: Pick<WindowTurnClaim, "item" | "attemptId">,
  error: { errorClass: ErrorClass | null; message: string },
): Promise<WorkItem | undefined> {
  const { errorClass, message } = error;
  const [row] = await tx.$queryRaw<WorkItem[]>`
    WITH closed AS (
      UPDATE work_attempts SET status = 'failed', error_class = ${errorClass}::"ErrorClass", error_message = ${message}, finished_at = now()
      WHERE id = ${claim.attemptId}::uuid
    )
    UPDATE work_items w SET status = 'queued', payload = w.payload - ${key}::text, error_class = ${errorClass}::"ErrorClass",
      error_message = ${errorClass ? message : null}, max_attempts = w.attempts + w.max_attempts
    WHERE id = ${claim.item.id}::uuid
    RETURNING ${itemColumns("w")}`;
  // Undefined when an erasure deleted the turn and its items while the group's job ran (docs/erasure.md).
  return row;
}

/**
 * The window's job gave up for good: every turn still waiting for (or held by) it runs alone, queued
 * with its own job and its own full number of tries; an attempt the window left open is closed with the window's
 * error. Answers the items to enqueue.
 */
export function releaseWindowTurns(db: DbOrTx, queue: string, windowId: string, message: string): Promise<WorkItem[]> {
  return releaseGroupTurns(db, { queue, key: "window_id", groupId: windowId, members: windowTurns(windowId), holder: "" }, message);
}

/** Every turn still waiting for (or held by) the group's job runs alone (see releaseWindowTurns). */
export async function releaseGroupTurns(db: DbOrTx, group: TurnGroup, message: string): Promise<WorkItem[]> {
  return db.$queryRaw<WorkItem[]>`
    WITH items AS (
      UPDATE work_items w SET status = 'queued', payload = w.payload - ${group.key}::text, finished_at = NULL,
        max_attempts = w.attempts + w.max_attempts
      WHERE ${groupMember(group)}
      RETURNING w.*
    ), closed AS (
      UPDATE work_attempts a SET status = 'failed', error_class = 'internal', error_message = ${message}, finished_at = now()
      FROM items WHERE a.work_item_id = items.id AND a.status = 'running'
    )
    SELECT ${itemColumns("items")} FROM items`;
}

/** The window holding a turn's item of a window stage, if any (the sweeper asks its job, not the turn's). */
export function windowOf(item: Pick<WorkItem, "queue" | "subjectType" | "payload">): string | undefined {
  if (item.subjectType !== "turn" || !WINDOW_STAGES.includes(item.queue)) return undefined;
  const windowId = (item.payload as Record<string, unknown> | null)?.["window_id"];
  return typeof windowId === "string" ? windowId : undefined;
}
