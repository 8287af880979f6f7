// Groups a session's asynchronous turns that need a model into windows. A turn joins the
// session's open window, or opens one whose job is held back for the linger (counted again
// from each turn that joins); a window that reaches its turn or character limit closes and
// runs at once. Joining happens under a
// per-session advisory lock, in the same transaction that marks the turn `waiting`, so a turn
// is in exactly one window and a window's job never sees a turn that has not been handed over.
import type { Config } from "@recall/config";
import { turnSourceText } from "@recall/contracts";
import { holdLock, lockKey, transaction, type Tx, type WorkItem } from "@recall/db";
import {
  assignWindow,
  enqueueOrLeaveForSweeper,
  ensureWorkItem,
  handOverToWindow,
  promoteWorkItem,
  redelayWorkItem,
  type Producer,
} from "@recall/pipeline";

export interface WindowLimits {
  maxTurns: number;
  maxChars: number;
  lingerMs: number;
}

export function windowLimits(config: Config): WindowLimits {
  return { maxTurns: config.RECALL_WINDOW_MAX_TURNS, maxChars: config.RECALL_WINDOW_MAX_CHARS, lingerMs: config.RECALL_WINDOW_LINGER_MS };
}

export interface ParkedTurn {
  id: string;
  contextId: string;
  sessionId: string;
  content: string;
  /** Counted with the content: a window's prompt reads both (`turnSourceText`). */
  attachmentText?: string;
  traceId: string;
}

/** What to do with window jobs once the transaction committed. */
export interface WindowRelease {
  /** Windows opened: their jobs wait for the linger, or run at once when the window closed full. */
  opened: { item: WorkItem; full: boolean }[];
  /** The session's open window the turns joined, still open: its linger starts again. */
  joined?: WorkItem;
  /** The session's open window, closed now: its held-back job runs at once. */
  promote: WorkItem[];
}

export async function lockSession(tx: Tx, sessionId: string): Promise<void> {
  await holdLock(tx, lockKey("window", sessionId));
}

/**
 * Hands the turn's extract item to a window and starts or releases that window's job. Nothing
 * after the commit may fail the turn's attempt (it is `waiting` now, and a retry would put it in a
 * second window): a window job Redis does not take is left to the sweeper, and a promotion or
 * re-delay that fails only changes when the window runs.
 */
export async function joinWindow(
  db: Parameters<typeof transaction>[0],
  producer: Producer,
  limits: WindowLimits,
  turn: ParkedTurn,
  item: WorkItem,
  /** The turn's own writes that must land with the hand-over (its extraction plan). */
  write?: (tx: Tx) => Promise<void>,
) {
  const release = await transaction(db, async (tx) => {
    await write?.(tx);
    return placeInWindows(tx, limits, [{ turn, workItemId: item.id }]);
  });
  await releaseWindows(producer, limits, release);
}

/**
 * Places turns of one session (in session order) in its windows, in one pass under the session's lock: they fill the
 * open window, then new ones; a window that reaches its limits closes. Their items wait for their windows from the
 * caller's commit on; then `releaseWindows` starts the windows' jobs.
 */
export async function placeInWindows(
  tx: Tx,
  limits: WindowLimits,
  turns: { turn: ParkedTurn; workItemId: string }[],
): Promise<WindowRelease> {
  const release: WindowRelease = { opened: [], promote: [] };
  if (turns.length === 0) return release;
  const { sessionId } = turns[0]!.turn;
  await lockSession(tx, sessionId);
  const open = await tx.extractionWindow.findFirst({ where: { sessionId, closedAt: null }, orderBy: { createdAt: "desc" } });
  let filling: Filling | undefined = open
    ? { id: open.id, members: [...open.turnIds], chars: await charsOf(tx, open.turnIds), joining: [] }
    : undefined;
  for (const { turn, workItemId } of turns) {
    if (filling && filling.members.length > 0 && !fits(filling, turnSourceText(turn), limits)) {
      await settle(tx, filling, turn, true, release);
      filling = undefined;
    }
    filling ??= { members: [], chars: 0, joining: [] };
    filling.members.push(turn.id);
    filling.chars += turnSourceText(turn).length;
    filling.joining.push(workItemId);
    if (filling.members.length >= limits.maxTurns) {
      await settle(tx, filling, turn, true, release);
      filling = undefined;
    }
  }
  if (filling && filling.joining.length > 0) await settle(tx, filling, turns.at(-1)!.turn, false, release);
  return release;
}

/** A window being filled: the session's open one (`id`) or a new one, with the turns joining it in this pass. */
interface Filling {
  id?: string;
  members: string[];
  chars: number;
  joining: string[];
}

function fits(window: Filling, text: string, limits: WindowLimits): boolean {
  return window.members.length + 1 <= limits.maxTurns && window.chars + text.length <= limits.maxChars;
}

/** Writes the window's turns (and whether it closed), hands the joining turns' items to it, and notes what to release. */
async function settle(tx: Tx, window: Filling, turn: ParkedTurn, close: boolean, release: WindowRelease): Promise<void> {
  const closedAt = close ? new Date() : undefined;
  const row = window.id
    ? await tx.extractionWindow.update({ where: { id: window.id }, data: { turnIds: window.members, closedAt } })
    : await tx.extractionWindow.create({
        data: { contextId: turn.contextId, sessionId: turn.sessionId, turnIds: window.members, closedAt },
      });
  const item = await windowItem(tx, row.id, turn);
  if (window.joining.length > 0) await handOverToWindow(tx, window.joining, row.id);
  if (!window.id) release.opened.push({ item, full: close });
  else if (close) release.promote.push(item);
  else release.joined = item;
}

/** Starts what the placement decided, once its transaction committed (see joinWindow for why nothing here may fail). */
export async function releaseWindows(producer: Producer, limits: WindowLimits, release: WindowRelease): Promise<void> {
  for (const { item, full } of release.opened) await enqueueOrLeaveForSweeper(producer, item, { delayMs: full ? 0 : limits.lingerMs });
  const { queues, logger } = producer;
  const bestEffort = (what: string, run: Promise<void>) =>
    run.catch((err: Error) => logger.warn({ err: err.message }, `${what} failed; the window runs when its delay ends`));
  for (const w of release.promote) await bestEffort("window promotion", promoteWorkItem(queues, w));
  // Linger counts from the latest turn, so turns arriving steadily (an import being extracted) fill the window.
  if (release.joined) await bestEffort("window re-delay", redelayWorkItem(queues, release.joined, limits.lingerMs));
}

async function charsOf(tx: Tx, turnIds: string[]): Promise<number> {
  if (turnIds.length === 0) return 0;
  const turns = await tx.turn.findMany({ where: { id: { in: turnIds } }, select: { content: true, attachmentText: true } });
  return turns.reduce((n, t) => n + turnSourceText(t).length, 0);
}

function windowItem(tx: Tx, windowId: string, turn: ParkedTurn): Promise<WorkItem> {
  return ensureWorkItem(tx, {
    contextId: turn.contextId,
    queue: "extract_window",
    subjectType: "window",
    subjectId: windowId,
    traceId: turn.traceId,
  });
}

/** Stops the window taking turns (its call is starting); returns its turns in session order. */
export async function closeWindow(db: Parameters<typeof transaction>[0], windowId: string) {
  return transaction(db, async (tx) => {
    // The row is read again under the session's lock: a turn that joined while this call waited
    // for the lock is in the window, and writing back a list read before it would drop that turn.
    const { sessionId } = await tx.extractionWindow.findUniqueOrThrow({ where: { id: windowId }, select: { sessionId: true } });
    await lockSession(tx, sessionId);
    const window = await tx.extractionWindow.findUniqueOrThrow({ where: { id: windowId } });
    const turns = await tx.turn.findMany({ where: { id: { in: window.turnIds } }, orderBy: { seq: "asc" } });
    // Turns join in the order their extraction reached the window; the row keeps session order.
    const turnIds = turns.map((t) => t.id);
    const closed = await tx.extractionWindow.update({
      where: { id: windowId },
      data: { closedAt: window.closedAt ?? new Date(), turnIds },
    });
    return { window: closed, turns };
  });
}

/**
 * A window that failed validation or its budget, split in two halves (session order kept),
 * each a closed window with its own work item, queued at once. Returns the new items.
 */
export async function splitWindow(
  db: Parameters<typeof transaction>[0],
  producer: Producer,
  windowId: string,
  turnIds: string[],
  traceId: string,
) {
  const half = Math.ceil(turnIds.length / 2);
  const parts = [turnIds.slice(0, half), turnIds.slice(half)];
  const items = await transaction(db, async (tx) => {
    const parent = await tx.extractionWindow.findUniqueOrThrow({ where: { id: windowId } });
    const created = [];
    for (const part of parts) {
      const child = await tx.extractionWindow.create({
        data: { contextId: parent.contextId, sessionId: parent.sessionId, turnIds: part, parentId: parent.id, closedAt: new Date() },
      });
      created.push(
        await ensureWorkItem(tx, {
          contextId: parent.contextId,
          queue: "extract_window",
          subjectType: "window",
          subjectId: child.id,
          traceId,
        }),
      );
      await assignWindow(tx, part, child.id);
    }
    return created;
  });
  for (const item of items) await enqueueOrLeaveForSweeper(producer, item);
  return items;
}
