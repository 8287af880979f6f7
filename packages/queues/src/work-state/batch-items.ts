// A history import's turns wait (`waiting`, with the batch's id) for one extract_assertions job of their batch
// (subject type `batch`), which claims them all in one statement, reads them with the rules in one pass and
// finishes each turn in its own way: staged (the rules finished it), handed to a window, or queued to run alone.
// When the batch's job gives up for good, every turn still in it runs alone; nothing is dropped.
import { Prisma, type DbOrTx, type Tx, type WorkItem } from "@recall/db";
import { claimGroupTurns, releaseGroupTurns, type TurnGroup, type WindowTurnClaim } from "./window-stages";

function batchGroup(batchId: string): TurnGroup {
  return {
    queue: "extract_assertions",
    key: "batch_id",
    groupId: batchId,
    members: Prisma.sql`SELECT tu.id FROM turn_batches b JOIN turns tu ON tu.session_id = b.session_id
      AND tu.seq BETWEEN b.first_seq AND b.last_seq WHERE b.id = ${batchId}::uuid`,
    holder: "its batch's worker",
  };
}

/** Claims the batch's turns still waiting for it (or left running by an interrupted attempt of its job), in session order. */
export function claimBatchTurns(tx: Tx, batchId: string, traceId: string | null): Promise<WindowTurnClaim[]> {
  return claimGroupTurns(tx, batchGroup(batchId), traceId);
}

/** The batch's job gave up for good: its turns run alone, each queued with its own job and its full number of tries. */
export function releaseBatchTurns(db: DbOrTx, batchId: string, message: string): Promise<WorkItem[]> {
  return releaseGroupTurns(db, batchGroup(batchId), message);
}

/** The batch holding a turn's extraction item, if any (the sweeper asks its job, not the turn's). */
export function batchOf(item: Pick<WorkItem, "queue" | "subjectType" | "payload">): string | undefined {
  if (item.subjectType !== "turn" || item.queue !== "extract_assertions") return undefined;
  const batchId = (item.payload as Record<string, unknown> | null)?.["batch_id"];
  return typeof batchId === "string" ? batchId : undefined;
}
