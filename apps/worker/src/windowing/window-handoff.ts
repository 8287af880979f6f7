// How a window's outcome reaches its turns. Each turn keeps its own extract_assertions work
// item: on success it gets its own candidates (with the model that read them) and goes on to
// its own validate_artifacts; on a final failure it is dead with the window's error, so the
// turn shows failed with a work item an operator can retry; a one-turn window that cannot be
// read is handed back to the interactive one-turn path (escalation included).
import {
  transaction,
  type Db,
  type DbOrTx,
  type ErrorClass,
  type ExtractionStage,
  type Prisma,
  type Turn,
  type WorkItem,
} from "@recall/db";
import { DIFF_KINDS, type ExtractionDiff } from "@recall/contracts";
import {
  enqueueOrLeaveForSweeper,
  ensureWorkItem,
  failWaitingTurns,
  finishWaitingTurns,
  requeueWorkItem,
  returnWaitingTurn,
  type Producer,
  type QueueSet,
} from "@recall/pipeline";
import { restageCandidates } from "../services/candidate-restage";

export interface WindowReading {
  windowId: string;
  /** The window's trace, which its later stages run in. */
  traceId: string;
  model: string;
  reason: string;
  /** The window item's tokens for this call, shown on each turn for reference (metered on the window). */
  windowTokens: number;
}

function turnItems(db: DbOrTx, turns: readonly Turn[]) {
  return db.workItem.findMany({
    where: { queue: "extract_assertions", subjectType: "turn", subjectId: { in: turns.map((t) => t.id) } },
  });
}

function turnItem(db: DbOrTx, turnId: string) {
  return db.workItem.findUnique({
    where: { queue_subjectType_subjectId: { queue: "extract_assertions", subjectType: "turn", subjectId: turnId } },
  });
}

/**
 * Stages each turn's diff on its own item and queues the window's validation, which validates each of its
 * turns (their own validate_artifacts items wait for it); turns no longer waiting (retried meanwhile) are left alone.
 */
export async function finishTurns(
  db: Db,
  producer: Producer,
  turns: Turn[],
  diffs: ExtractionDiff[],
  reading: WindowReading,
): Promise<void> {
  const next = await transaction(db, async (tx) => {
    const items = new Map((await turnItems(tx, turns)).map((item) => [item.subjectId, item]));
    const outcome = { node_id: null, stage: "fast", model: reading.model, reason: reading.reason, tokens_used: 0 };
    const read = turns.flatMap((turn, i) => {
      const item = items.get(turn.id);
      return item ? [{ item, turn, diff: diffs[i]! }] : [];
    });
    // Claimed by a conditional update, which locks the rows until this transaction ends: of two windows holding the
    // same turn, only one finishes it, and the other cannot replace the candidates the first staged (and validation
    // may already have checked) with unvalidated ones.
    const claimed = new Set(
      await finishWaitingTurns(
        tx,
        read.map(({ item, turn }) => ({
          workItemId: item.id,
          turnId: turn.id,
          traceId: item.traceId,
          payload: { ...(item.payload as object), outcomes: [{ ...outcome, window_tokens: reading.windowTokens }] },
        })),
        {
          contextId: turns[0]!.contextId,
          queue: "validate_artifacts",
          background: true,
          waiting: true,
          payload: { window_id: reading.windowId },
        },
      ),
    );
    const staged = read.filter(({ item }) => claimed.has(item.id));
    const rows = staged.flatMap(({ item, turn, diff }) => candidateRows(item, turn, diff, { stage: "fast", model: reading.model }));
    // A turn extracted again keeps what its rules committed; the window's reading adds only what they had not.
    await restageCandidates(
      tx,
      staged.map(({ item }) => item.id),
      rows,
    );
    if (staged.length === 0) return undefined;
    const window = { contextId: turns[0]!.contextId, subjectType: "window" as const, subjectId: reading.windowId };
    return ensureWorkItem(tx, { ...window, queue: "validate_artifacts", traceId: reading.traceId });
  });
  if (next) await enqueueOrLeaveForSweeper(producer, next);
}

/** A turn's candidates from one reading of it (a window's model call, a batch's rules). */
export function candidateRows(
  item: Pick<WorkItem, "id">,
  turn: Pick<Turn, "id" | "contextId">,
  diff: ExtractionDiff,
  by: { stage: ExtractionStage; model: string | null },
): Prisma.KnowledgeCandidateCreateManyInput[] {
  const rows: Prisma.KnowledgeCandidateCreateManyInput[] = [];
  for (const [field, kind] of DIFF_KINDS) {
    for (const value of diff[field]) {
      rows.push({
        contextId: turn.contextId,
        workItemId: item.id,
        subjectType: "turn",
        subjectId: turn.id,
        turnId: turn.id,
        ordinal: rows.length,
        kind,
        payload: value as Prisma.InputJsonValue,
        stage: by.stage,
        model: by.model,
      });
    }
  }
  return rows;
}

/** The window gave up for good: its waiting turns are dead with its error, each retryable on its own. */
export async function failTurns(db: Db, turnIds: string[], errorClass: ErrorClass, message: string): Promise<void> {
  await failWaitingTurns(db, turnIds, errorClass, `window: ${message}`);
}

/** A turn no window can read goes the interactive way: its own call, with repair and escalation to the strong model. */
export async function handToInteractive(db: Db, queues: QueueSet, turnId: string, why: string): Promise<void> {
  const item = await turnItem(db, turnId);
  if (!item || item.status !== "waiting") return;
  const payload = { ...(item.payload as object), mode: "interactive", window_failure: why };
  // Only while still waiting: another window may have finished the turn meanwhile.
  const updated = await returnWaitingTurn(db, item.id, payload, `window: ${why}`);
  if (updated) await requeueWorkItem(queues, updated);
}
