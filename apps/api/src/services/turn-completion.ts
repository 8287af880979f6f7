// Waiting for a turn without polling it: the work_items trigger raises a NOTIFY on the commit
// that moves a turn to an answer (truth maintained, or a stage dead), and this process's one
// listening connection wakes exactly the requests waiting on that turn. A slow re-read stays
// as the safety net for a notification lost while the connection was down.
import { CHANNELS, NotificationListener, type Db } from "@recall/db";
import { SETTLED_STATES, inputState } from "@recall/pipeline";
import type { Logger } from "@recall/telemetry";
import { readTurn, type TurnProgress } from "../views/turn-result";

export class TurnCompletion {
  readonly #waiters = new Map<string, Set<() => void>>();
  #released = false;

  constructor(
    readonly listener: NotificationListener,
    /** How long a waiter sleeps between re-reads when no notification comes. */
    readonly fallbackPollMs: number,
  ) {
    listener.on(CHANNELS.turnProgress, (turnId) => this.wake(turnId));
  }

  /**
   * A promise settled by the next notification for the turn (or by `cancel`). Take it BEFORE
   * reading the turn's state, so a commit landing between the read and the wait is not missed.
   */
  next(turnId: string): { woken: Promise<void>; cancel(): void } {
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    let set = this.#waiters.get(turnId);
    if (!set) this.#waiters.set(turnId, (set = new Set()));
    set.add(wake);
    const cancel = () => {
      set.delete(wake);
      if (set.size === 0 && this.#waiters.get(turnId) === set) this.#waiters.delete(turnId);
      wake();
    };
    return { woken, cancel };
  }

  /**
   * Shutting down: every request waiting on a turn answers now with the turn's current state, and none
   * waits from here on.
   */
  release(): void {
    this.#released = true;
    for (const set of this.#waiters.values()) for (const wake of set) wake();
  }

  get released(): boolean {
    return this.#released;
  }

  /** Requests waiting right now (the bench and tests read it). */
  get waiting(): number {
    return this.#waiters.size;
  }

  private wake(turnId: string): void {
    for (const wake of this.#waiters.get(turnId) ?? []) wake();
  }
}

export function createTurnCompletion(databaseUrl: string, fallbackPollMs: number, logger: Logger): TurnCompletion {
  const listener = new NotificationListener({
    databaseUrl,
    channels: [CHANNELS.turnProgress],
    onError: (err) => logger.warn({ err: err.message }, "turn notification connection lost; reconnecting"),
  });
  void listener.start();
  return new TurnCompletion(listener, fallbackPollMs);
}

/**
 * Waits for the turn's completion notification (`first`, taken before its job was queued), or, if
 * one was lost, fallbackPollMs, then reads the turn's work items and candidates in one transaction;
 * again until it is committed or failed, or the timeout passes.
 */
export async function waitForTurn(
  db: Db,
  completion: TurnCompletion,
  turn: { id: string; contextId: string },
  timeoutMs: number,
  first: { woken: Promise<void>; cancel(): void },
): Promise<TurnProgress> {
  const deadline = Date.now() + timeoutMs;
  let wait = first;
  try {
    for (;;) {
      const left = deadline - Date.now();
      if (left > 0 && !completion.released) await Promise.race([wait.woken, sleep(Math.min(left, completion.fallbackPollMs))]);
      // The next notification is listened for before reading, so a commit landing during the read is not missed.
      wait.cancel();
      wait = completion.next(turn.id);
      const progress = await readTurn(db, turn);
      const state = inputState(progress.items);
      if (SETTLED_STATES.includes(state) || Date.now() >= deadline || completion.released) return progress;
    }
  } finally {
    wait.cancel();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
