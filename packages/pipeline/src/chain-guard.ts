// Chained stages (docs/guarantees.md, Chained stages): an interactive turn's validation, commit and truth maintenance run in the job of
// the stage before them, each as its own attempt. What keeps that as safe as a queue hop is the guard: the stage's
// own job, added before the chained run starts and held back for as long as a job's lock lasts (renewed while the run
// goes on, as BullMQ renews a lock). A process killed mid-run leaves the stage to that job, which claims the item
// (closing the killed attempt as abandoned) when the delay ends, as BullMQ runs a stalled job again. A run that ends
// takes the guard away, or hands it the work: now (a shutdown), or after the stage's backoff with the tries left (a
// failure). The guard's job id is the work item's, as for every job, so nothing ever runs a stage twice at once
// except across a kill, which the claim and the finish already settle.
import { kindOf } from "@recall/contracts";
import type { WorkItem } from "@recall/db";
import type { Logger } from "@recall/telemetry";
import { isBackground } from "./priority";
import { enqueueOrLeaveForSweeper, enqueueWorkItem, promoteWorkItem, redelayWorkItem, removeWorkItemJobs, type QueueSet } from "./producer";
import { backoffDelay, type QueueName } from "./registry";

/** Whether the next stage of this item may run in its job: an interactive turn's (a caller waits on it). */
export function chainable(item: Pick<WorkItem, "subjectType" | "payload">): boolean {
  return kindOf(item.subjectType).chainable && !isBackground(item);
}

interface GuardDeps {
  queues: QueueSet;
  logger: Logger;
}

export class ChainGuard {
  #renewal: NodeJS.Timeout | undefined;

  private constructor(
    private readonly deps: GuardDeps,
    private readonly item: WorkItem,
    private readonly holdMs: number,
  ) {
    this.#renewal = setInterval(() => void this.renew(), Math.max(1, Math.floor(holdMs / 2)));
    this.#renewal.unref();
  }

  /** Adds the item's job, delayed `holdMs`; undefined when Redis did not take it (the sweeper queues the item later). */
  static async hold(deps: GuardDeps, item: WorkItem, holdMs: number): Promise<ChainGuard | undefined> {
    if (!(await enqueueOrLeaveForSweeper(deps, item, { delayMs: holdMs }))) return undefined;
    return new ChainGuard(deps, item, holdMs);
  }

  /** The run ended (succeeded, skipped, or dead): the guard is not needed. A guard left behind finds its item done. */
  async release(): Promise<void> {
    this.stop();
    await this.quietly("remove", () => removeWorkItemJobs(this.deps.queues, [this.item]));
  }

  /** A shutdown stopped the run (its item queued again): the guard runs it now, in any process. */
  async runNow(): Promise<void> {
    this.stop();
    await this.quietly("promote", () => promoteWorkItem(this.deps.queues, this.item));
  }

  /**
   * The run failed and may be retried: the guard gives way to a job that retries after the stage's backoff, with the
   * tries the stage has left (one was spent here), so the stage's retries and dead letters are those of a queued run.
   */
  async retryLater(err: Error): Promise<void> {
    this.stop();
    const queue = this.item.queue as QueueName;
    await this.quietly("retry", async () => {
      await removeWorkItemJobs(this.deps.queues, [this.item]);
      const attempts = Math.max(1, this.item.maxAttempts - 1);
      await enqueueWorkItem(this.deps.queues, this.item, undefined, { delayMs: backoffDelay(queue, 1, err), attempts });
    });
  }

  stop(): void {
    clearInterval(this.#renewal);
    this.#renewal = undefined;
  }

  private async renew(): Promise<void> {
    await this.quietly("renew", () => redelayWorkItem(this.deps.queues, this.item, this.holdMs));
  }

  /** Redis not answering leaves the item to the sweeper (queued or failed without a live job), as for any lost job. */
  private async quietly(what: string, fn: () => Promise<unknown>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      this.deps.logger.warn(
        { err: (err as Error).message, workItemId: this.item.id, queue: this.item.queue },
        `chain guard: ${what} failed`,
      );
    }
  }
}
