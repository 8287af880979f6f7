// What operators do with work items, in one place for the HTTP routes (per context and across
// contexts), the CLI and the MCP server, so all of them follow the same rules: list by filter,
// read one with every attempt, retry one or many (from the failed stage, or from extraction
// on purpose), cancel.
import { DomainError, notFound } from "@recall/contracts";
import type { Db, ErrorClass, Prisma, WorkAttempt, WorkItem, WorkStatus } from "@recall/db";
import { withSpan, workItemsFinished, type Logger } from "@recall/telemetry";
import { isRedisUnavailable } from "./connection";
import { findJob, type QueueSet } from "./producer";
import { isQueueName } from "./registry";
import { NotRetryableError, RETRYABLE_STATUSES, retryWorkItem } from "./retry";
import { cancelWorkItem } from "./work-state";

/** A cancel the item's state does not allow: a 409 `not_cancellable`. */
export class NotCancellableError extends DomainError {
  override name = "NotCancellableError";
  constructor(message: string) {
    super("conflict", message, { problem: "not_cancellable" });
  }
}

export interface WorkItemFilter {
  /** Omitted: every context (admin use). */
  contextId?: string;
  statuses?: WorkStatus[];
  queues?: string[];
  errorClasses?: ErrorClass[];
  documentId?: string;
  /** The work items of every turn of this session. */
  sessionId?: string;
  turnId?: string;
  createdFrom?: Date;
  createdTo?: Date;
}

export interface PagePosition {
  k: string | number;
  id: string;
}

export interface WorkItemPage {
  items: WorkItem[];
  next: PagePosition | null;
}

export type RetryFrom = "failed" | "extract";

export interface RetryManyReport {
  dryRun: boolean;
  matched: number;
  retried: WorkItem[];
  skipped: { workItemId: string; reason: string }[];
}

export interface WorkItemServiceDeps {
  db: Db;
  queues: QueueSet;
  logger: Logger;
}

export interface WorkItemServiceOptions {
  /** Retry-many handles at most this many items per call; the rest wait for the next call. */
  maxBatch?: number;
}

/** Statuses cancel may stop: not running (its worker records the outcome) nor finished. */
const CANCELLABLE: readonly WorkStatus[] = ["queued", "failed", "dead"];

export class WorkItemService {
  private readonly maxBatch: number;

  constructor(
    private readonly deps: WorkItemServiceDeps,
    options: WorkItemServiceOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? 1_000;
  }

  /** Newest first, `limit` per page, resuming strictly after `after`. */
  async list(filter: WorkItemFilter, page: { limit: number; after?: PagePosition }): Promise<WorkItemPage> {
    const where = await this.whereOf(filter);
    if (page.after) {
      const at = new Date(String(page.after.k));
      where.AND = [{ OR: [{ createdAt: { lt: at } }, { createdAt: at, id: { lt: page.after.id } }] }];
    }
    const rows = await this.deps.db.workItem.findMany({ where, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: page.limit + 1 });
    const items = rows.slice(0, page.limit);
    const last = items[items.length - 1];
    return { items, next: rows.length > page.limit && last ? { k: last.createdAt.toISOString(), id: last.id } : null };
  }

  /** One item with every attempt, oldest attempt first; undefined when absent (or in another context). */
  async get(id: string, contextId?: string): Promise<(WorkItem & { attemptRecords: WorkAttempt[] }) | undefined> {
    const item = await this.deps.db.workItem.findFirst({
      where: { id, contextId },
      include: { attemptRecords: { orderBy: { attempt: "asc" } } },
    });
    return item ?? undefined;
  }

  /**
   * Runs the item again from its kept input. Finished stages before it are reused; with
   * `from: "extract"` the subject's extraction runs again, and every later stage after it.
   */
  async retry(id: string, options: { contextId?: string; from?: RetryFrom; background?: boolean } = {}): Promise<WorkItem> {
    const item = await this.require(id, options.contextId);
    const lane = { background: options.background };
    return withSpan("work_item retry", { "recall.work_item_id": item.id, "recall.queue": item.queue }, () =>
      options.from === "extract" && item.queue !== "extract_assertions"
        ? this.reExtract(item, lane)
        : retryWorkItem(this.deps.db, this.deps.queues, item, RETRYABLE_STATUSES, lane),
    );
  }

  /** Retries every retryable item the filter matches (failed and dead unless statuses say otherwise). */
  async retryMany(filter: WorkItemFilter, options: { dryRun?: boolean; from?: RetryFrom } = {}): Promise<RetryManyReport> {
    const statuses = (filter.statuses ?? ["failed", "dead"]).filter((s) => RETRYABLE_STATUSES.includes(s));
    const where = await this.whereOf({ ...filter, statuses });
    if (statuses.length === 0) return { dryRun: Boolean(options.dryRun), matched: 0, retried: [], skipped: [] };
    const matched = await this.deps.db.workItem.count({ where });
    const report: RetryManyReport = { dryRun: Boolean(options.dryRun), matched, retried: [], skipped: [] };
    if (options.dryRun) return report;
    const items = await this.deps.db.workItem.findMany({ where, orderBy: [{ createdAt: "asc" }, { id: "asc" }], take: this.maxBatch });
    for (const item of items) {
      try {
        // Nobody waits on a bulk retry: it runs in the background lane, where contexts take turns.
        report.retried.push(await this.retry(item.id, { from: options.from, background: true }));
      } catch (err) {
        if (!(err instanceof NotRetryableError)) throw err;
        report.skipped.push({ workItemId: item.id, reason: err.message });
      }
    }
    this.deps.logger.info({ matched, retried: report.retried.length, skipped: report.skipped.length }, "retried work items by filter");
    return report;
  }

  /** Stops a queued or failed item: its job is removed and a worker that still picks it up skips it. */
  async cancel(id: string, options: { contextId?: string } = {}): Promise<WorkItem> {
    const item = await this.require(id, options.contextId);
    const cancelled = await cancelWorkItem(this.deps.db, item.id, CANCELLABLE);
    if (!cancelled) {
      const now = await this.require(id, options.contextId);
      throw new NotCancellableError(`work item is ${now.status}; only queued, failed or dead work can be cancelled`);
    }
    await this.removeJob(item);
    workItemsFinished.inc({ queue: item.queue, status: "cancelled", error_class: item.errorClass ?? "" });
    this.deps.logger.info({ workItemId: item.id, queue: item.queue, was: item.status }, "work item cancelled");
    return cancelled;
  }

  /** Extraction again on purpose: only while nothing of the subject was committed (a commit is never redone). */
  private async reExtract(item: WorkItem, lane: { background?: boolean }): Promise<WorkItem> {
    const { db } = this.deps;
    const subject = { subjectType: item.subjectType, subjectId: item.subjectId };
    const stages = await db.workItem.findMany({ where: subject });
    const extract = stages.find((s) => s.queue === "extract_assertions");
    if (!extract) throw new NotRetryableError(`a ${item.subjectType} has no extraction stage to run again`);
    if (stages.some((s) => s.queue === "commit_artifacts" && s.status === "succeeded")) {
      throw new NotRetryableError("its extraction is already committed; retract the source and send it again to re-extract");
    }
    if (stages.some((s) => s.status === "running" || (s.status === "queued" && s.id !== item.id))) {
      throw new NotRetryableError("a stage of this subject is running or queued; wait for it or cancel it first");
    }
    // Later stages run again when extraction hands them new candidates (see worker-factory's ensureNext).
    return retryWorkItem(db, this.deps.queues, extract, [...RETRYABLE_STATUSES, "succeeded"], lane);
  }

  private async require(id: string, contextId?: string): Promise<WorkItem> {
    const item = await this.deps.db.workItem.findFirst({ where: { id, contextId } });
    if (!item) throw notFound("work item");
    return item;
  }

  private async removeJob(item: WorkItem): Promise<void> {
    if (!isQueueName(item.queue)) return;
    // With Redis down the job stays, like an active one, which cannot be removed: a worker that picks it up finds the item cancelled and skips it.
    const job = await findJob(this.deps.queues, item).catch((err: Error) => {
      if (isRedisUnavailable(err)) return undefined;
      throw err;
    });
    await job?.remove().catch(() => undefined);
  }

  private async whereOf(filter: WorkItemFilter): Promise<Prisma.WorkItemWhereInput> {
    const where: Prisma.WorkItemWhereInput = { contextId: filter.contextId };
    if (filter.statuses?.length) where.status = { in: filter.statuses };
    if (filter.queues?.length) where.queue = { in: filter.queues };
    if (filter.errorClasses?.length) where.errorClass = { in: filter.errorClasses };
    if (filter.createdFrom || filter.createdTo) where.createdAt = { gte: filter.createdFrom, lt: filter.createdTo };
    const subjects = await this.subjectsOf(filter);
    if (subjects) Object.assign(where, subjects);
    return where;
  }

  private async subjectsOf(filter: WorkItemFilter): Promise<Prisma.WorkItemWhereInput | undefined> {
    if (filter.documentId) return { subjectType: "document", subjectId: filter.documentId };
    if (filter.turnId) return { subjectType: "turn", subjectId: filter.turnId };
    if (!filter.sessionId) return undefined;
    const turns = await this.deps.db.turn.findMany({
      where: { sessionId: filter.sessionId, contextId: filter.contextId },
      select: { id: true },
    });
    return { subjectType: "turn", subjectId: { in: turns.map((t) => t.id) } };
  }
}
