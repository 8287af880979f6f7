// What /metrics reads at scrape time: each queue's depth by state and the age of its oldest
// waiting job (from Redis), and the outbox backlog (from Postgres).
import { bypassCounts, withoutTenant, type Db } from "@recall/db";
import {
  initialiseSeries,
  observeAwaitingModel,
  observeOutbox,
  observeQueues,
  observeTenancyBypasses,
  type AwaitingModelCount,
  type QueueDepth,
} from "@recall/telemetry";
import { LANES } from "./priority";
import { laneQueue, type QueueSet } from "./producer";
import { QUEUE_NAMES } from "./registry";

export async function queueDepths(queues: QueueSet, now = Date.now()): Promise<QueueDepth[]> {
  return Promise.all(
    QUEUE_NAMES.map(async (name) => {
      // A stage's depth is both of its lanes (priority.ts); prioritized jobs (enqueued before lanes existed) wait too.
      const lanes = LANES.map((lane) => laneQueue(queues, name, lane));
      const counts = await Promise.all(lanes.map((q) => q.getJobCounts("waiting", "prioritized", "active", "delayed", "failed")));
      const sum = (...states: string[]) => counts.reduce((n, c) => n + states.reduce((m, s) => m + (c[s] ?? 0), 0), 0);
      // asc: the oldest first; one job of each list is enough.
      const firsts = await Promise.all(lanes.flatMap((q) => [q.getJobs(["waiting"], 0, 0, true), q.getJobs(["prioritized"], 0, 0, true)]));
      const oldest = Math.min(...firsts.flat().map((job) => job.timestamp));
      return {
        queue: name,
        counts: { waiting: sum("waiting", "prioritized"), active: sum("active"), delayed: sum("delayed"), failed: sum("failed") },
        oldestWaitingAgeSeconds: Number.isFinite(oldest) ? Math.max(0, (now - oldest) / 1_000) : 0,
      };
    }),
  );
}

export async function outboxBacklog(db: Db): Promise<{ pending: number; oldestAgeSeconds: number }> {
  const [row] = await withoutTenant(
    "metrics",
    () => db.$queryRaw<{ pending: bigint; oldest: Date | null }[]>`
    SELECT count(*) AS pending, min(created_at) AS oldest FROM outbox_events WHERE processed_at IS NULL`,
  );
  const oldest = row?.oldest;
  return { pending: Number(row?.pending ?? 0), oldestAgeSeconds: oldest ? Math.max(0, (Date.now() - oldest.getTime()) / 1_000) : 0 };
}

/**
 * Inputs whose state (input-state.ts) is awaiting_model across contexts, by the queue that awaits and subject type:
 * an item awaiting a model whose input is committed (recall_input_committed, the triggers' and inputState's
 * condition). The (context_id, status) index serves it.
 */
export async function awaitingModelCounts(db: Db): Promise<AwaitingModelCount[]> {
  const rows = await withoutTenant(
    "metrics",
    () => db.$queryRaw<{ queue: string; subject_type: string; n: bigint }[]>`
    SELECT queue, subject_type, count(*) AS n FROM work_items
    WHERE status = 'awaiting_model' AND recall_input_committed(subject_type, subject_id) GROUP BY queue, subject_type`,
  );
  return rows.map((r) => ({ queue: r.queue, subjectType: r.subject_type, count: Number(r.n) }));
}

/** Makes this process's /metrics report these queues and this database's outbox. */
export function observePipeline(db: Db, queues: QueueSet): void {
  initialiseSeries(QUEUE_NAMES);
  observeQueues(() => queueDepths(queues));
  observeOutbox(() => outboxBacklog(db));
  observeAwaitingModel(() => awaitingModelCounts(db));
  observeTenancyBypasses(bypassCounts);
}
