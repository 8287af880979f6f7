// What the operators' dashboard shows, across contexts: recent documents and sessions with each
// stage's status and timing, failed work with its error, inputs awaiting a model (counted apart:
// not failures), and each queue's depth and age.
import type { Db, WorkItem } from "@recall/db";
import type { ListPosition } from "@recall/memory";
import { PIPELINE, queueDepths, type QueueSet, type WorkItemService } from "@recall/pipeline";
import { workItemView } from "../../views/work-item-view";

const RECENT_DOCUMENTS = 15;
const RECENT_SESSIONS = 8;
const TURNS_PER_SESSION = 5;
const FAILING_WEBHOOKS = 20;
/** Failed work a page at a time: a row is about 100 px, so more would push everything else off the first screens. */
export const FAILED_PAGE = 10;
const AWAITING_CONTEXTS = 10;

export interface OverviewDeps {
  db: Db;
  queues: QueueSet;
  workItems: WorkItemService;
}

function stagesOf(items: WorkItem[]) {
  return PIPELINE.map((queue) => {
    const item = items.find((i) => i.queue === queue);
    if (!item) return { queue, status: "pending" };
    const ms = item.startedAt && item.finishedAt ? item.finishedAt.getTime() - item.startedAt.getTime() : null;
    return {
      queue,
      status: item.status,
      work_item_id: item.id,
      attempts: item.attempts,
      started_at: item.startedAt,
      duration_ms: ms,
      error: item.errorClass ? { class: item.errorClass, message: item.errorMessage } : null,
    };
  });
}

async function itemsBySubject(db: Db, subjectIds: string[]): Promise<Map<string, WorkItem[]>> {
  const items = await db.workItem.findMany({ where: { subjectId: { in: subjectIds } } });
  const by = new Map<string, WorkItem[]>();
  for (const item of items) by.set(item.subjectId, [...(by.get(item.subjectId) ?? []), item]);
  return by;
}

async function recentDocuments(db: Db) {
  const documents = await db.document.findMany({
    orderBy: { createdAt: "desc" },
    take: RECENT_DOCUMENTS,
    select: { id: true, contextId: true, createdAt: true, traceId: true, text: true },
  });
  const items = await itemsBySubject(
    db,
    documents.map((d) => d.id),
  );
  return documents.map((d) => ({
    document_id: d.id,
    context_id: d.contextId,
    created_at: d.createdAt,
    trace_id: d.traceId,
    excerpt: d.text.slice(0, 80),
    stages: stagesOf(items.get(d.id) ?? []),
  }));
}

async function recentSessions(db: Db) {
  const sessions = await db.session.findMany({
    orderBy: { createdAt: "desc" },
    take: RECENT_SESSIONS,
    include: { turns: { orderBy: { seq: "desc" }, take: TURNS_PER_SESSION } },
  });
  const items = await itemsBySubject(
    db,
    sessions.flatMap((s) => s.turns.map((t) => t.id)),
  );
  return sessions.map((s) => ({
    session_id: s.id,
    context_id: s.contextId,
    created_at: s.createdAt,
    turns: s.turns.map((t) => ({
      turn_id: t.id,
      seq: t.seq,
      trace_id: t.traceId,
      excerpt: t.content.slice(0, 80),
      stages: stagesOf(items.get(t.id) ?? []),
    })),
  }));
}

/** Webhooks whose endpoint is failing or was disabled for it (docs/webhooks.md), longest failing first. */
async function failingWebhooks(db: Db) {
  const hooks = await db.webhook.findMany({
    where: { OR: [{ failingSince: { not: null } }, { disabledAt: { not: null } }] },
    orderBy: [{ failingSince: "asc" }, { id: "asc" }],
    take: FAILING_WEBHOOKS,
  });
  return hooks.map((w) => ({
    webhook_id: w.id,
    context_id: w.contextId,
    url: w.url,
    failing_since: w.failingSince,
    disabled_at: w.disabledAt,
  }));
}

/** Inputs awaiting a model (not failures, so never in `failed`), and the contexts with most of them. */
async function awaitingModel(db: Db) {
  const where = { queue: "extract_assertions", status: "awaiting_model" as const };
  const [bySubject, byContext] = await Promise.all([
    db.workItem.groupBy({ by: ["subjectType"], where, _count: { _all: true } }),
    db.workItem.groupBy({
      by: ["contextId"],
      where,
      _count: { _all: true },
      orderBy: { _count: { contextId: "desc" } },
      take: AWAITING_CONTEXTS,
    }),
  ]);
  const of = (type: string) => bySubject.find((s) => s.subjectType === type)?._count._all ?? 0;
  return {
    total: bySubject.reduce((n, s) => n + s._count._all, 0),
    turns: of("turn"),
    documents: of("document"),
    by_context: byContext.map((c) => ({ context_id: c.contextId, count: c._count._all })),
  };
}

/** `failedAfter`: the failed list's page after this position (the previous page's `failed_next` cursor). */
export async function dashboardOverview(deps: OverviewDeps, failedAfter?: ListPosition) {
  const [queues, documents, sessions, failed, webhooks, awaiting] = await Promise.all([
    queueDepths(deps.queues),
    recentDocuments(deps.db),
    recentSessions(deps.db),
    deps.workItems.list({ statuses: ["failed", "dead"] }, { limit: FAILED_PAGE, after: failedAfter }),
    failingWebhooks(deps.db),
    awaitingModel(deps.db),
  ]);
  return {
    generated_at: new Date(),
    queues,
    documents,
    sessions,
    failed: failed.items.map(workItemView),
    failedNext: failed.next,
    webhooks,
    awaiting_model: awaiting,
  };
}
