// Groups a session's asynchronous turns that need a model into windows. A turn joins the
// session's open window, or opens one whose job is held back for the linger (counted again
// from each turn that joins); a window that reaches its turn or character limit closes and
// runs at once. Joining happens under a
// per-session advisory lock, in the same transaction that marks the turn `waiting`, so a turn
// is in exactly one window and a window's job never sees a turn that has not been handed over.
import type { Config } from "@recall/config";
import { holdLock, lockKey, transaction, type Tx, type WorkItem } from "@recall/db";
import {
  assignWindow,
  enqueueOrLeaveForSweeper,
  ensureWorkItem,
  handOverToWindow,
  promoteWorkItem,
  redelayWorkItem,
  type Producer,
} from "@recall/queues";

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
  traceId: string;
}

/** What to do with window jobs once the transaction committed. */
interface Release {
  open?: WorkItem;
  /** The window the turn joined, still open: its linger starts again. */
  joined?: WorkItem;
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
  const release = await transaction(db, async (tx): Promise<Release> => {
    await write?.(tx);
    await lockSession(tx, turn.sessionId);
    const release: Release = { promote: [] };
    let window = await tx.extractionWindow.findFirst({
      where: { sessionId: turn.sessionId, closedAt: null },
      orderBy: { createdAt: "desc" },
    });
    if (window && !(await hasRoom(tx, window.turnIds, turn.content, limits))) {
      await tx.extractionWindow.update({ where: { id: window.id }, data: { closedAt: new Date() } });
      release.promote.push(await windowItem(tx, window.id, turn));
      window = null;
    }
    window = window
      ? await tx.extractionWindow.update({ where: { id: window.id }, data: { turnIds: { push: turn.id } } })
      : await tx.extractionWindow.create({ data: { contextId: turn.contextId, sessionId: turn.sessionId, turnIds: [turn.id] } });
    const windowWork = await windowItem(tx, window.id, turn);
    if (window.turnIds.length === 1) release.open = windowWork;
    else release.joined = windowWork;
    if (window.turnIds.length >= limits.maxTurns) {
      await tx.extractionWindow.update({ where: { id: window.id }, data: { closedAt: new Date() } });
      release.promote.push(windowWork);
    }
    await handOverToWindow(tx, item.id, window.id);
    return release;
  });
  const full = release.open && release.promote.some((w) => w.id === release.open!.id);
  if (release.open) await enqueueOrLeaveForSweeper(producer, release.open, { delayMs: full ? 0 : limits.lingerMs });
  const { queues, logger } = producer;
  const bestEffort = (what: string, run: Promise<void>) =>
    run.catch((err: Error) => logger.warn({ err: err.message }, `${what} failed; the window runs when its delay ends`));
  for (const w of release.promote) if (w.id !== release.open?.id) await bestEffort("window promotion", promoteWorkItem(queues, w));
  // Linger counts from the latest turn, so turns arriving steadily (an import being extracted) fill the window.
  if (release.joined && !release.promote.some((w) => w.id === release.joined!.id))
    await bestEffort("window re-delay", redelayWorkItem(queues, release.joined, limits.lingerMs));
}

async function hasRoom(tx: Tx, turnIds: string[], content: string, limits: WindowLimits): Promise<boolean> {
  if (turnIds.length + 1 > limits.maxTurns) return false;
  const turns = await tx.turn.findMany({ where: { id: { in: turnIds } }, select: { content: true } });
  const chars = turns.reduce((n, t) => n + t.content.length, 0) + content.length;
  return chars <= limits.maxChars;
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
