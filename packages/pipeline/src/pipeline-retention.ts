// Retention of the pipeline's own records (docs/operating.md#retention-of-pipeline-records): each worker process
// compacts finished work older than RECALL_PIPELINE_RETENTION_DAYS once an hour, beside its outbox relay and webhook
// dispatcher. Every batch is its own short transaction of at most BATCH_ROWS rows a statement, so a run never holds
// locks or a snapshot for long; a batch first takes the retention lock without waiting, and a process that finds it
// taken leaves this run to the one holding it. The statements are also safe without it (work-state/compact-records.ts).
import { lockKey, transaction, tryLock, withoutTenant, type Db, type Tx } from "@recall/db";
import type { Logger } from "@recall/telemetry";
import { WakeLoop } from "./wake-loop";
import { WORK_CURSOR_START, compactFinishedWork, rollUpModelCalls, type CompactStep } from "./work-state";

/** Rows one statement compacts at most. */
export const BATCH_ROWS = 1_000;
/** How often each worker process runs it. */
export const RETENTION_EVERY_MS = 60 * 60_000;
const DAY_MS = 86_400_000;

export interface RetentionOptions {
  db: Db;
  logger: Logger;
  /** RECALL_PIPELINE_RETENTION_DAYS; 0: never compact. */
  days: number;
  batchRows?: number;
}

export interface RetentionReport {
  /** Another process held the retention lock: it compacts, this run stopped. */
  busy: boolean;
  modelCalls: number;
  workItems: number;
  attempts: number;
  plans: number;
  outboxEvents: number;
}

/** The start (UTC midnight) of the day `days` before `now`: model calls are summed by whole UTC days. */
export function retentionCutoff(now: Date, days: number): Date {
  const then = now.getTime() - days * DAY_MS;
  return new Date(then - (then % DAY_MS));
}

/** Compacts everything finished before the cutoff, batch after batch, until nothing is left. */
export function compactPipelineRecords(options: RetentionOptions, now = new Date()): Promise<RetentionReport> {
  return withoutTenant("pipeline-retention", () => compactAll(options, now));
}

async function compactAll({ db, days, batchRows = BATCH_ROWS }: RetentionOptions, now: Date): Promise<RetentionReport> {
  const report: RetentionReport = { busy: false, modelCalls: 0, workItems: 0, attempts: 0, plans: 0, outboxEvents: 0 };
  if (days <= 0) return report;
  const step: CompactStep = { before: retentionCutoff(now, days), limit: batchRows };
  const calls = await inBatches(
    db,
    batchRows,
    (tx) => rollUpModelCalls(tx, step),
    (n) => {
      report.modelCalls += n;
      return n;
    },
  );
  let cursor = WORK_CURSOR_START;
  const work =
    calls &&
    (await inBatches(
      db,
      batchRows,
      (tx) => compactFinishedWork(tx, step, cursor),
      (done) => {
        cursor = done.next;
        report.workItems += done.workItems;
        report.attempts += done.attempts;
        report.plans += done.plans;
        report.outboxEvents += done.outboxEvents;
        return done.scanned;
      },
    ));
  return { ...report, busy: !work };
}

/**
 * Runs `batch` in a transaction of its own under the retention lock, then `committed` with its result (answering the
 * rows it looked at), until a batch looks at fewer than `limit`. False when another process held the lock.
 */
async function inBatches<T>(db: Db, limit: number, batch: (tx: Tx) => Promise<T>, committed: (result: T) => number): Promise<boolean> {
  for (;;) {
    const result = await transaction(db, async (tx) => ((await tryLock(tx, lockKey("retention"))) ? { done: await batch(tx) } : undefined));
    if (!result) return false;
    if (committed(result.done) < limit) return true;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

export class PipelineRetention {
  private readonly loop: WakeLoop;

  constructor(private readonly options: RetentionOptions & { everyMs?: number }) {
    this.loop = new WakeLoop(() => this.tick(), options.everyMs ?? RETENTION_EVERY_MS);
  }

  start(): void {
    if (this.options.days > 0) this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  private async tick(): Promise<void> {
    try {
      const report = await compactPipelineRecords(this.options);
      if (report.modelCalls + report.workItems + report.outboxEvents > 0) this.options.logger.info(report, "pipeline records compacted");
    } catch (err) {
      this.options.logger.error({ err: (err as Error).message }, "pipeline retention failed");
    }
  }
}
