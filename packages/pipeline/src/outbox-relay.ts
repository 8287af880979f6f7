// Moves committed outbox rows onto truth_maintenance. Rows are claimed with
// FOR UPDATE SKIP LOCKED, so any number of relays can run side by side. The same
// loop re-enqueues work items left `queued` without a job (a crash between the
// row and the enqueue, or Redis down at ingest), and takes back items left `running`
// by a process that died (see stale-running.ts): accepted work is never lost.
import type { Db, NotificationListener } from "@recall/db";
import { CHANNELS, transaction, withoutTenant } from "@recall/db";
import type { Logger } from "@recall/telemetry";
import { itemTrace } from "./item-trace";
import { enqueueWorkItem, type QueueSet } from "./producer";
import { SubjectType, type QueueName } from "./registry";
import { requeueLostJobs } from "./lost-jobs";
import { recoverStaleRunning } from "./stale-running";
import { WakeLoop } from "./wake-loop";
import { ensureWorkItem } from "./work-state";

export interface RelayOptions {
  db: Db;
  queues: QueueSet;
  logger: Logger;
  pollMs: number;
  batchSize?: number;
  /** A queued (or retry-waiting) work item older than this whose job Redis lost is enqueued again. */
  sweepAfterMs?: number;
  /** How often the sweep runs (the drain runs on every wake-up and poll). */
  sweepIntervalMs?: number;
  /** A running work item whose attempt is older than this and has no live job is taken back. */
  runningLeaseMs: number;
  /**
   * Wakes the relay when any process commits outbox rows (the outbox_events trigger's NOTIFY);
   * pollMs is then only the safety net for a notification lost while disconnected.
   */
  listener?: NotificationListener;
}

interface ClaimedRow {
  id: string;
  context_id: string;
  trace_id: string;
  subject_type: string;
  subject_id: string;
  /** The committing work item was background work (priority.ts); so is its truth maintenance. */
  background: boolean;
  /** The span that created the committing item (item-trace.ts), when it was kept. */
  trace: unknown;
}

export class OutboxRelay {
  private readonly loop: WakeLoop;
  private unlisten: (() => void) | undefined;

  constructor(private readonly options: RelayOptions) {
    this.loop = new WakeLoop(() => this.tick(), options.pollMs);
  }

  /** Relays every unprocessed outbox row, of every context; returns how many it moved. */
  drain = (): Promise<number> => withoutTenant("outbox-relay", () => this.relayAll());

  private async relayAll(): Promise<number> {
    const { db, batchSize = 100 } = this.options;
    let moved = 0;
    for (;;) {
      const items = await transaction(db, async (tx) => {
        const rows = await tx.$queryRaw<ClaimedRow[]>`
          SELECT o.id, o.context_id, o.trace_id, coalesce(w.subject_type, o.payload->>'subjectType') AS subject_type,
            coalesce(w.subject_id::text, o.payload->>'subjectId') AS subject_id,
            coalesce(w.payload->>'background' = 'true', false) AS background, w.payload->'trace' AS trace
          FROM outbox_events o LEFT JOIN work_items w ON w.id = o.work_item_id
          WHERE o.processed_at IS NULL
          ORDER BY o.created_at LIMIT ${batchSize} FOR UPDATE OF o SKIP LOCKED`;
        const created = [];
        for (const row of rows) {
          created.push(
            await ensureWorkItem(tx, {
              contextId: row.context_id,
              queue: "truth_maintenance" satisfies QueueName,
              subjectType: SubjectType.parse(row.subject_type),
              subjectId: row.subject_id,
              traceId: row.trace_id,
              background: row.background,
              // Published under the span that created the commit's item: a span of this trace that was exported.
              ...(row.trace ? { payload: { trace: row.trace } } : {}),
            }),
          );
        }
        if (rows.length > 0) {
          await tx.outboxEvent.updateMany({ where: { id: { in: rows.map((r) => r.id) } }, data: { processedAt: new Date() } });
        }
        return created;
      });
      for (const item of items) await enqueueWorkItem(this.options.queues, item, itemTrace(item));
      moved += items.length;
      if (items.length < batchSize) return moved;
    }
  }

  /**
   * Enqueues work items whose job Redis lost (`queued`, or `failed` awaiting a retry, past
   * sweepAfterMs; deterministic job ids make this safe), and takes back abandoned `running` ones;
   * returns how many items it handled.
   */
  sweep = (): Promise<number> => withoutTenant("sweeper", () => this.sweepAll());

  private async sweepAll(): Promise<number> {
    const { db, queues, logger, sweepAfterMs = 30_000, runningLeaseMs } = this.options;
    const lost = await requeueLostJobs({ db, queues, logger, olderThanMs: sweepAfterMs });
    const recovered = await recoverStaleRunning({ db, queues, logger, leaseMs: runningLeaseMs });
    return lost.length + recovered.length;
  }

  start(): void {
    this.unlisten = this.options.listener?.on(CHANNELS.outbox, () => this.kick());
    this.loop.start();
  }

  /** Drain now (after a commit) instead of waiting for the next poll. */
  kick(): void {
    this.loop.kick();
  }

  async stop(): Promise<void> {
    this.unlisten?.();
    await this.loop.stop();
  }

  private lastSweep = 0;

  private async tick(): Promise<void> {
    try {
      await this.drain();
      if (Date.now() - this.lastSweep > (this.options.sweepIntervalMs ?? 10_000)) {
        this.lastSweep = Date.now();
        await this.sweep();
      }
    } catch (err) {
      this.options.logger.error({ err: (err as Error).message }, "outbox relay tick failed");
    }
  }
}
