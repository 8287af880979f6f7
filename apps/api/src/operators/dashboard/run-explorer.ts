// The dashboard's run explorer, a read model across contexts: find the inputs (turns, documents,
// direct writes, windows) behind any id an operator holds (context, session, turn, document, batch,
// work item, trace id), each with its stages' work items and every attempt; one work item's page
// with its input's stage timeline; and model spend per context. Every list here is capped
// (docs/limits.md) so one search costs a bounded number of indexed reads.
import type { Db, Prisma, WorkAttempt, WorkItem } from "@recall/db";
import { PIPELINE, type WorkItemService } from "@recall/pipeline";
import { readUsage } from "../../views/usage";
import { workItemView } from "../../views/work-item-view";
import { workItemDetail } from "../../routes/work-items.schemas";

/** At most this many inputs answer one search (a context's or session's newest first). */
export const SEARCH_MAX_INPUTS = 20;
export const SPEND_DAYS = 7;
/** The spend panel shows the costliest contexts only. */
export const SPEND_MAX_CONTEXTS = 50;

export interface ExplorerDeps {
  db: Db;
  workItems: WorkItemService;
  /** RECALL_TRACE_URL_TEMPLATE: `{trace_id}` is replaced. */
  traceUrlTemplate?: string;
}

interface Subject {
  type: string;
  id: string;
}

type Detailed = WorkItem & { attemptRecords: WorkAttempt[] };

/** Where a trace id is linked to, when a trace UI is configured. */
export const traceUrl = (template: string | undefined, traceId: string | null) =>
  template && traceId ? template.replaceAll("{trace_id}", encodeURIComponent(traceId)) : null;

/** `q` is a UUID or a 32-hex trace id (the route checks which). */
export async function searchRuns(deps: ExplorerDeps, q: string, kind: "uuid" | "trace_id") {
  const found = kind === "uuid" ? await subjectsOfId(deps.db, q) : { matched: [], subjects: await subjectsOfTrace(deps.db, q) };
  const truncated = found.subjects.length > SEARCH_MAX_INPUTS;
  const inputs = await inputsOf(deps, found.subjects.slice(0, SEARCH_MAX_INPUTS));
  return { q, kind, matched: kind === "uuid" ? found.matched : inputs.length ? [{ type: "trace", id: q }] : [], inputs, truncated };
}

/** Which records carry this id, and the inputs they stand for (newest first, one more than the cap). */
async function subjectsOfId(db: Db, id: string): Promise<{ matched: Subject[]; subjects: Subject[] }> {
  const [context, session, turn, document, batch, item, factWrite] = await Promise.all([
    db.context.findUnique({ where: { id }, select: { id: true } }),
    db.session.findUnique({ where: { id }, select: { id: true } }),
    db.turn.findUnique({ where: { id }, select: { id: true } }),
    db.document.findUnique({ where: { id }, select: { id: true } }),
    db.turnBatch.findUnique({ where: { id } }),
    db.workItem.findUnique({ where: { id }, select: { subjectType: true, subjectId: true } }),
    db.factWrite.findUnique({ where: { id }, select: { id: true } }),
  ]);
  const take = SEARCH_MAX_INPUTS + 1;
  const turnsWhere = async (where: Prisma.TurnWhereInput, seq: "asc" | "desc") =>
    (await db.turn.findMany({ where, orderBy: { seq }, take, select: { id: true } })).map((t) => ({ type: "turn", id: t.id }));
  const found: [type: string, subjects: () => Promise<Subject[]> | Subject[]][] = [];
  if (context) found.push(["context", () => newestInputsOf(db, id)]);
  if (session) found.push(["session", () => turnsWhere({ sessionId: id }, "desc")]);
  if (batch) {
    found.push(["batch", () => turnsWhere({ sessionId: batch.sessionId, seq: { gte: batch.firstSeq, lte: batch.lastSeq } }, "asc")]);
  }
  if (turn) found.push(["turn", () => [{ type: "turn", id }]]);
  if (document) found.push(["document", () => [{ type: "document", id }]]);
  if (factWrite) found.push(["fact_write", () => [{ type: "fact_write", id }]]);
  if (item) found.push(["work_item", () => [{ type: item.subjectType, id: item.subjectId }]]);
  const subjects = await Promise.all(found.map(([, of]) => of()));
  return { matched: found.map(([type]) => ({ type, id })), subjects: subjects.flat() };
}

/** A context's newest turns and documents together. */
async function newestInputsOf(db: Db, contextId: string): Promise<Subject[]> {
  const newest = { where: { contextId }, orderBy: { createdAt: "desc" as const }, take: SEARCH_MAX_INPUTS + 1 };
  const select = { id: true, createdAt: true };
  const [turns, documents] = await Promise.all([db.turn.findMany({ ...newest, select }), db.document.findMany({ ...newest, select })]);
  return [...turns.map((t) => ({ ...t, type: "turn" })), ...documents.map((d) => ({ ...d, type: "document" }))]
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
    .slice(0, SEARCH_MAX_INPUTS + 1)
    .map((r) => ({ type: r.type, id: r.id }));
}

/** The inputs whose stages ran in this trace: the items' own trace ids, and retries' attempts. */
async function subjectsOfTrace(db: Db, traceId: string): Promise<Subject[]> {
  const take = SEARCH_MAX_INPUTS + 1;
  const select = { subjectType: true, subjectId: true } as const;
  const [items, attempts] = await Promise.all([
    db.workItem.findMany({ where: { traceId }, orderBy: { createdAt: "desc" }, take: take * PIPELINE.length, select }),
    db.workAttempt.findMany({ where: { traceId }, take: take * PIPELINE.length, select: { workItem: { select } } }),
  ]);
  const all = [...items, ...attempts.map((a) => a.workItem)].map((s) => ({ type: s.subjectType, id: s.subjectId }));
  return [...new Map(all.map((s) => [`${s.type}:${s.id}`, s])).values()];
}

async function inputsOf(deps: ExplorerDeps, subjects: Subject[]) {
  const unique = [...new Map(subjects.map((s) => [`${s.type}:${s.id}`, s])).values()];
  const ids = unique.map((s) => s.id);
  const { db } = deps;
  const [items, turns, documents] = await Promise.all([
    db.workItem.findMany({ where: { subjectId: { in: ids } }, include: { attemptRecords: { orderBy: { attempt: "asc" } } } }),
    db.turn.findMany({
      where: { id: { in: ids } },
      select: { id: true, contextId: true, sessionId: true, seq: true, createdAt: true, traceId: true },
    }),
    db.document.findMany({ where: { id: { in: ids } }, select: { id: true, contextId: true, createdAt: true, traceId: true } }),
  ]);
  const related = await relatedItems(db, turns, ids);
  const names = await contextNames(
    db,
    [...items, ...turns, ...documents].map((r) => r.contextId),
  );
  const rows = new Map<string, { context_id: string; created_at: Date; trace_id: string; session_id?: string; seq?: number }>();
  for (const t of turns)
    rows.set(t.id, { context_id: t.contextId, session_id: t.sessionId, seq: t.seq, created_at: t.createdAt, trace_id: t.traceId });
  for (const d of documents) rows.set(d.id, { context_id: d.contextId, created_at: d.createdAt, trace_id: d.traceId });
  return unique.flatMap((s) => {
    const own = [
      ...inStageOrder(items.filter((i) => i.subjectId === s.id && i.subjectType === s.type)),
      ...inStageOrder(related.get(s.id) ?? []),
    ];
    const first = own[0];
    const row =
      rows.get(s.id) ?? (first ? { context_id: first.contextId, created_at: first.createdAt, trace_id: first.traceId } : undefined);
    if (!row) return [];
    return [
      {
        subject_type: s.type,
        subject_id: s.id,
        ...row,
        context_name: names.get(row.context_id) ?? null,
        trace_url: traceUrl(deps.traceUrlTemplate, row.trace_id),
        work_items: own.map((i) => detailWithLinks(deps, i)),
      },
    ];
  });
}

/**
 * Work items that ran for an input under another subject, by input: the extraction window that read a turn (one
 * model call for several turns) and an input's review commits (its approved reviews). Listed after the input's own.
 */
async function relatedItems(db: Db, turns: { id: string; sessionId: string }[], inputIds: string[]): Promise<Map<string, Detailed[]>> {
  const turnIds = turns.map((t) => t.id);
  const [windows, reviewCommits] = await Promise.all([
    turnIds.length === 0
      ? []
      : db.extractionWindow.findMany({
          where: { sessionId: { in: [...new Set(turns.map((t) => t.sessionId))] }, turnIds: { hasSome: turnIds } },
          select: { id: true, turnIds: true },
        }),
    db.reviewCommit.findMany({ where: { subjectId: { in: inputIds } }, select: { id: true, subjectId: true } }),
  ]);
  const inputsOf = new Map<string, string[]>();
  for (const w of windows)
    inputsOf.set(
      w.id,
      w.turnIds.filter((id) => turnIds.includes(id)),
    );
  for (const r of reviewCommits) inputsOf.set(r.id, [r.subjectId]);
  if (inputsOf.size === 0) return new Map();
  const items = await db.workItem.findMany({
    where: { subjectId: { in: [...inputsOf.keys()] } },
    include: { attemptRecords: { orderBy: { attempt: "asc" } } },
  });
  const byInput = new Map<string, Detailed[]>();
  for (const item of items)
    for (const input of inputsOf.get(item.subjectId) ?? []) byInput.set(input, [...(byInput.get(input) ?? []), item]);
  return byInput;
}

/** Pipeline order; other queues (a window's extraction) after it. */
function inStageOrder<T extends { queue: string; createdAt: Date }>(items: T[]): T[] {
  const order: readonly string[] = PIPELINE;
  const rank = (q: string) => (order.includes(q) ? order.indexOf(q) : order.length);
  return [...items].sort((a, b) => rank(a.queue) - rank(b.queue) || a.createdAt.getTime() - b.createdAt.getTime());
}

function detailWithLinks(deps: ExplorerDeps, item: Detailed) {
  const detail = workItemDetail(item);
  return {
    ...detail,
    trace_url: traceUrl(deps.traceUrlTemplate, item.traceId),
    attempt_records: detail.attempt_records.map((a) => ({ ...a, trace_url: traceUrl(deps.traceUrlTemplate, a.trace_id) })),
  };
}

/** The names of these contexts (each once). */
export async function contextNames(db: Db, ids: string[]): Promise<Map<string, string>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await db.context.findMany({ where: { id: { in: unique } }, select: { id: true, name: true } });
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** A page of the work-item list, each item with its context's name and trace link. */
export async function workItemsWithNames(deps: ExplorerDeps, items: WorkItem[]) {
  const names = await contextNames(
    deps.db,
    items.map((i) => i.contextId),
  );
  return items.map((i) => ({
    ...workItemView(i),
    context_name: names.get(i.contextId) ?? null,
    trace_url: traceUrl(deps.traceUrlTemplate, i.traceId),
  }));
}

/** One work item's page: its attempts and every stage of its input (status, attempts, timings). */
export async function workItemPage(deps: ExplorerDeps, id: string) {
  const item = await deps.workItems.get(id);
  if (!item) return undefined;
  const [stages, names] = await Promise.all([
    deps.db.workItem.findMany({ where: { subjectType: item.subjectType, subjectId: item.subjectId } }),
    contextNames(deps.db, [item.contextId]),
  ]);
  return {
    ...detailWithLinks(deps, item),
    context_name: names.get(item.contextId) ?? null,
    timeline: inStageOrder(stages).map((s) => ({
      work_item_id: s.id,
      queue: s.queue,
      status: s.status,
      attempts: s.attempts,
      created_at: s.createdAt,
      started_at: s.startedAt,
      finished_at: s.finishedAt,
      duration_ms: s.startedAt && s.finishedAt ? s.finishedAt.getTime() - s.startedAt.getTime() : null,
      error: s.errorClass ? { class: s.errorClass, message: s.errorMessage } : null,
    })),
  };
}

/** Model spend of the last SPEND_DAYS days per context, with the contexts' names, costliest first. */
export async function contextSpend(db: Db, now = new Date()) {
  const from = new Date(now.getTime() - SPEND_DAYS * 86_400_000);
  const usage = await readUsage(db, { from, to: now, groupBy: "context" });
  const names = await contextNames(
    db,
    usage.groups.map((g) => g.key),
  );
  const contexts = usage.groups
    .map(({ key, ...sums }) => ({ context_id: key, context_name: names.get(key) ?? null, ...sums }))
    .sort((a, b) => b.cost_usd - a.cost_usd || b.calls - a.calls);
  return {
    from: usage.from,
    to: usage.to,
    totals: usage.totals,
    contexts: contexts.slice(0, SPEND_MAX_CONTEXTS),
    more_contexts: Math.max(0, contexts.length - SPEND_MAX_CONTEXTS),
  };
}
