// The pipeline's side of the ports memory asks it through (PipelineRecords and AnnounceCommit, declared in
// @recall/contracts, ports.ts): the reads, locks and deletes memory needs of work items, their attempts, commit
// announcements (the outbox) and webhook events. The apps hand these to memory's erasure, import and commit; memory
// names none of these tables.
import {
  WEBHOOK_ID_KEYS,
  type AnnounceCommit,
  type CommitAnnouncement,
  type ErasedWorkItem,
  type ForgetRequest,
  type PipelineRecords,
  type WebhookIdTarget,
} from "@recall/contracts";
import { Prisma, type DbOrTx, type Tx, type WorkItem } from "@recall/db";

/** The events whose data names any of the deleted ids, by what each id key names (WEBHOOK_ID_KEYS). */
function namingAny(ids: Record<WebhookIdTarget, readonly string[]>): Prisma.Sql | undefined {
  const tests = Object.entries(WEBHOOK_ID_KEYS)
    .filter(([, target]) => ids[target].length > 0)
    .map(([key, target]) => Prisma.sql`data->>${key} = ANY(${[...ids[target]]}::text[])`);
  return tests.length > 0 ? Prisma.join(tests, " OR ") : undefined;
}

/**
 * The announcement of commits (one, or a group's), in their transaction, in one statement; `relayed` when truth
 * maintenance's items are already created beside them. It names the commit's subject only (what the relay needs once
 * an erasure took the work item): what the commit produced is memory's record (commit_records), which truth
 * maintenance reads.
 */
export function commitAnnouncer(options: { relayed: boolean }): AnnounceCommit<Tx> {
  return async (tx, ...commits) => {
    if (commits.length === 0) return;
    const now = new Date();
    const processedAt = options.relayed ? now : null;
    const column = <T>(f: (c: CommitAnnouncement) => T) => commits.map(f);
    // A later pass of the same commit (an input extracted again once a model was set) announces it again: one row a commit.
    await tx.$executeRaw`
      INSERT INTO outbox_events (id, context_id, type, work_item_id, payload, trace_id, created_at, processed_at)
      SELECT gen_random_uuid(), a.context_id, 'artifacts_committed', a.commit_id, a.payload, a.trace_id, ${now}, ${processedAt}::timestamptz
      FROM unnest(${column((c) => c.contextId)}::uuid[], ${column((c) => c.commitId)}::uuid[],
        ${column((c) => JSON.stringify({ subjectType: c.refs.subjectType, subjectId: c.refs.subjectId }))}::jsonb[],
        ${column((c) => c.traceId)}::text[]) AS a(context_id, commit_id, payload, trace_id)
      ON CONFLICT (work_item_id) DO UPDATE SET trace_id = EXCLUDED.trace_id, processed_at = EXCLUDED.processed_at,
        created_at = EXCLUDED.created_at`;
  };
}

/**
 * Work items (their attempts cascade), kept with their queues so their jobs can be removed after the commit, and how
 * many attempts went with them: the statement's snapshot still sees the attempts the cascade deletes.
 */
async function deleteWorkItems(tx: Tx, where: Prisma.Sql): Promise<{ items: ErasedWorkItem[]; attempts: number }> {
  const rows = await tx.$queryRaw<(ErasedWorkItem & { attempts: number })[]>`
    WITH gone AS (DELETE FROM work_items WHERE ${where} RETURNING id, queue)
    SELECT g.id::text AS id, g.queue, (SELECT count(*) FROM work_attempts a WHERE a.work_item_id = g.id)::int AS attempts
    FROM gone g`;
  return { items: rows.map(({ id, queue }) => ({ id, queue })), attempts: rows.reduce((n, r) => n + r.attempts, 0) };
}

/** The work on one subject (its items of every stage, oldest first): a fact's provenance shows it. */
export function workOnSubject(db: DbOrTx, contextId: string, subject: { type: string; id: string }): Promise<WorkItem[]> {
  return db.workItem.findMany({ where: { contextId, subjectType: subject.type, subjectId: subject.id }, orderBy: { createdAt: "asc" } });
}

export const pipelineRecords = {
  foreignWork(contextId: string, ids: readonly string[]): Prisma.Sql {
    return Prisma.sql`SELECT id::text AS id FROM work_items WHERE id = ANY(${[...ids]}::uuid[]) AND context_id <> ${contextId}::uuid`;
  },

  async lockWork(tx: Tx, subjects: readonly string[], reviewSources: readonly string[]): Promise<void> {
    // With the items of the inputs' review commits (subject type `review`), which write the inputs' approved reviews.
    await tx.$queryRaw`SELECT id FROM work_items WHERE subject_id = ANY(${[...subjects]}::uuid[])
      OR (subject_type = 'review' AND subject_id IN (SELECT id FROM review_commits WHERE subject_id = ANY(${[...reviewSources]}::uuid[])))
      ORDER BY id FOR UPDATE`;
  },

  /**
   * Work items and their attempts, the commits' announcements and the webhook events that name an erased input (ids
   * only, but the input is to leave no trace; their pending deliveries go by cascade). The calls a model made stay in
   * model_calls: spend, no text. Windows left empty lose their work; the others' keep it, without error messages.
   */
  async forget(tx: Tx, { contextId, subjects, emptyWindows, keptWindows, derived }: ForgetRequest) {
    const counts: Record<string, number> = {};
    // Every stage's item of the inputs, and the items of the windows they leave empty: each with all its attempts.
    const inputs = await deleteWorkItems(tx, Prisma.sql`subject_id = ANY(${subjects}::uuid[])`);
    // The windows' own items are not in an outbox (a window commits nothing itself) but their events name them.
    const windows = await deleteWorkItems(tx, Prisma.sql`subject_type = 'window' AND subject_id = ANY(${emptyWindows}::uuid[])`);
    const workItems = [...inputs.items, ...windows.items];
    counts.work_attempts = inputs.attempts + windows.attempts;
    const items = workItems.map((w) => w.id);
    counts.outbox_events = await tx.$executeRaw`DELETE FROM outbox_events WHERE work_item_id = ANY(${items}::uuid[])
      OR (context_id = ${contextId}::uuid AND payload->>'subjectId' = ANY(${subjects}::text[]))`;
    const naming = namingAny({
      input: [...subjects, ...emptyWindows],
      work_item: items,
      kept: [],
      ...(derived ?? { fact: [], supersession: [], instruction: [] }),
    });
    counts.webhook_events = naming
      ? await tx.$executeRaw`DELETE FROM webhook_events WHERE context_id = ${contextId}::uuid AND (${naming})`
      : 0;
    counts.work_items = workItems.length;
    await tx.$executeRaw`UPDATE work_attempts SET error_message = NULL WHERE error_message IS NOT NULL
      AND work_item_id IN (SELECT id FROM work_items WHERE subject_type = 'window' AND subject_id = ANY(${keptWindows}::uuid[]))`;
    await tx.$executeRaw`UPDATE work_items SET error_message = NULL WHERE subject_type = 'window' AND subject_id = ANY(${keptWindows}::uuid[])`;
    return { counts, workItems };
  },

  async forgetContext(tx: Tx, contextId: string): Promise<Record<string, number>> {
    const ctx = Prisma.sql`${contextId}::uuid`;
    const [attempts] = await tx.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM work_attempts a JOIN work_items w ON w.id = a.work_item_id WHERE w.context_id = ${ctx}`;
    return {
      work_attempts: attempts?.n ?? 0,
      work_items: await tx.$executeRaw`DELETE FROM work_items WHERE context_id = ${ctx}`,
      outbox_events: await tx.$executeRaw`DELETE FROM outbox_events WHERE context_id = ${ctx}`,
      // Webhook deliveries go with their events and webhooks (cascade).
      webhook_events: await tx.$executeRaw`DELETE FROM webhook_events WHERE context_id = ${ctx}`,
    };
  },

  textColumns: [
    { table: "work_items", column: "payload", json: true, rows: (contextId: string) => Prisma.sql`context_id = ${contextId}::uuid` },
    { table: "work_items", column: "error_message", json: false, rows: (contextId: string) => Prisma.sql`context_id = ${contextId}::uuid` },
    {
      table: "work_attempts",
      column: "error_message",
      json: false,
      rows: (contextId: string) => Prisma.sql`work_item_id IN (SELECT id FROM work_items WHERE context_id = ${contextId}::uuid)`,
    },
    { table: "outbox_events", column: "payload", json: true, rows: (contextId: string) => Prisma.sql`context_id = ${contextId}::uuid` },
    { table: "webhook_events", column: "data", json: true, rows: (contextId: string) => Prisma.sql`context_id = ${contextId}::uuid` },
  ],
} satisfies PipelineRecords<Tx, Prisma.Sql>;
