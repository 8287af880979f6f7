// Claim: one statement marks the item running, closes the attempt an interrupted run left open,
// opens this attempt's record and returns the item with what every stage starts from (its
// context's config, its subject's row, its extraction plan). A stage that needs more (its
// candidates, the known entities) reads it in the same transaction through `load`.
// Never claimed: a succeeded or awaiting_model item (a duplicate delivery), a waiting one (its window finishes
// it), a cancelled one (an operator stopped it). Attempts count up across operator retries.
import { z } from "zod";
import { contextConfigOf, type ContextConfig } from "@recall/contracts";
import { Prisma, transaction, type Db, type DbOrTx, type Tx, type WorkItem, type WorkStatus } from "@recall/db";
import { itemColumns } from "./item-row";

const when = z.coerce.date();

/** The subject's own row, as far as every stage needs it (a document's nodes and text are read by its stages). */
export const ClaimedSubject = z.object({
  /** A turn, a document or a direct write; absent when the subject is a window, or was deleted. */
  turn: z
    .object({
      id: z.string(),
      contextId: z.string(),
      sessionId: z.string(),
      seq: z.number(),
      role: z.string(),
      speaker: z.string().nullable(),
      content: z.string(),
      /** The attachments' text (captions, alt text): the turn's source text is the content, a newline, then this. */
      attachmentText: z.string(),
      scope: z.array(z.string()),
      occurredAt: when.nullable(),
      traceId: z.string(),
      createdAt: when,
    })
    .nullable(),
  document: z
    .object({
      id: z.string(),
      contextId: z.string(),
      metadata: z.record(z.string(), z.unknown()),
      format: z.string(),
      traceId: z.string(),
      createdAt: when,
      sourceType: z.string().nullable(),
      sourceMetadata: z.record(z.string(), z.unknown()).nullable(),
    })
    .nullable(),
  factWrite: z
    .object({ id: z.string(), contextId: z.string(), text: z.string(), scope: z.array(z.string()), traceId: z.string(), createdAt: when })
    .nullable(),
  /** A review commit's input (subject type `review`): the row above is that input's, and so is the plan. */
  review: z.object({ subjectType: z.enum(["turn", "document"]), subjectId: z.string() }).nullable(),
});
export type ClaimedSubject = z.infer<typeof ClaimedSubject>;

/** The extraction plan recorded for the subject, if any (the skill validation and truth maintenance follow). */
export const ClaimedPlan = z.object({
  skillId: z.string(),
  skillSource: z.string(),
  purpose: z.string().nullable(),
  purposeSource: z.string().nullable(),
  trace: z.unknown(),
});
export type ClaimedPlan = z.infer<typeof ClaimedPlan>;

export interface ClaimedWork {
  /** The item as claimed: running, `attempts` counting this one. */
  item: WorkItem;
  attemptId: string;
  /** The context's `config`, read through its schema ({} when the context is gone). */
  contextConfig: ContextConfig;
  subject: ClaimedSubject;
  plan: ClaimedPlan | null;
}

export type ClaimOutcome<I> =
  | ({ claimed: true; input: I } & ClaimedWork)
  /** Not claimable: `status` is what it is (succeeded, waiting or cancelled). */
  | { claimed: false; status: WorkStatus }
  /** No such item. */
  | undefined;

export interface ClaimRequest {
  workItemId: string;
  /** The trace this attempt runs in (a retry may run in another than the item's first); null outside one. */
  traceId: string | null;
}

/** Reads what a stage needs beyond the claim, in the claim's transaction. */
export type ClaimLoader<I> = (tx: Tx, claimed: ClaimedWork) => Promise<I>;

/** Claims the item; with `load`, the stage's own reads share the claim's transaction (one commit). */
export async function claimWorkItem<I = undefined>(db: Db, request: ClaimRequest, load?: ClaimLoader<I>): Promise<ClaimOutcome<I>> {
  if (!load) return claimStatement<I>(db, request, async () => undefined as I);
  return transaction(db, (tx) => claimStatement(tx, request, (claimed) => load(tx, claimed)));
}

/** The claimed item's columns (null when nothing was claimed) and what comes with them. */
type ClaimRow = WorkItem & {
  priorStatus: WorkStatus;
  attemptId: string | null;
  contextConfig: Prisma.JsonValue | null;
  subject: unknown;
  plan: unknown;
};

async function claimStatement<I>(db: DbOrTx, request: ClaimRequest, load: (claimed: ClaimedWork) => Promise<I>): Promise<ClaimOutcome<I>> {
  const [row] = await db.$queryRaw<ClaimRow[]>(claimSql(request));
  if (!row) return undefined;
  const { priorStatus, attemptId, contextConfig, subject, plan, ...item } = row;
  if (!attemptId || item.id === null) return { claimed: false, status: priorStatus };
  const claimed: ClaimedWork = {
    item,
    attemptId,
    contextConfig: contextConfigOf(contextConfig),
    subject: ClaimedSubject.parse(subject),
    plan: plan === null ? null : ClaimedPlan.parse(plan),
  };
  return { claimed: true, ...claimed, input: await load(claimed) };
}

/**
 * The target is locked first (FOR UPDATE), so of two claims of one item the second waits for the
 * first, then counts the next attempt and closes the first's as interrupted.
 */
function claimSql({ workItemId, traceId }: ClaimRequest): Prisma.Sql {
  return Prisma.sql`
    WITH target AS (
      SELECT id, status FROM work_items WHERE id = ${workItemId}::uuid FOR UPDATE
    ), claimed AS (
      UPDATE work_items w SET status = 'running', attempts = w.attempts + 1, started_at = now(), finished_at = NULL
      FROM target t WHERE w.id = t.id AND t.status NOT IN ('cancelled', 'succeeded', 'waiting', 'awaiting_model')
      RETURNING w.*
    )${attemptsOfClaimed(traceId, "its worker")}
    SELECT t.status::text AS "priorStatus", (SELECT id FROM opened) AS "attemptId",
      ${itemColumns("c")},
      x.config AS "contextConfig",
      json_build_object('turn', ${turnJson}, 'document', ${documentJson}, 'factWrite', ${factWriteJson},
        'review', CASE WHEN rc.id IS NULL THEN NULL ELSE json_build_object('subjectType', rc.subject_type, 'subjectId', rc.subject_id) END) AS subject,
      CASE WHEN p.id IS NULL THEN NULL ELSE json_build_object('skillId', p.skill_id, 'skillSource', p.skill_source,
        'purpose', p.purpose, 'purposeSource', p.purpose_source, 'trace', p.trace) END AS plan
    FROM target t
    LEFT JOIN claimed c ON c.id = t.id
    LEFT JOIN contexts x ON x.id = c.context_id
    LEFT JOIN review_commits rc ON c.subject_type = 'review' AND rc.id = c.subject_id
    LEFT JOIN extraction_plans p ON p.subject_type = coalesce(rc.subject_type, c.subject_type)
      AND p.subject_id = coalesce(rc.subject_id, c.subject_id)
    LEFT JOIN turns tu ON coalesce(rc.subject_type, c.subject_type) = 'turn' AND tu.id = coalesce(rc.subject_id, c.subject_id)
    LEFT JOIN documents d ON coalesce(rc.subject_type, c.subject_type) = 'document' AND d.id = coalesce(rc.subject_id, c.subject_id)
    LEFT JOIN sources s ON s.id = d.source_id
    LEFT JOIN fact_writes f ON c.subject_type = 'fact_write' AND f.id = c.subject_id`;
}

/**
 * The CTEs after `claimed` (items just marked running, `attempts` counting this one): the attempts an
 * interrupted run of `holder` left open closed as abandoned, and this attempt opened (`opened`: id, work_item_id).
 */
export function attemptsOfClaimed(traceId: string | null, holder: string): Prisma.Sql {
  const why = `started while this one was open (${holder} stopped, or lost the database mid-attempt)`;
  return Prisma.sql`, interrupted AS (
      UPDATE work_attempts a SET status = 'failed', error_class = 'abandoned', finished_at = now(),
        error_message = 'abandoned: attempt ' || c.attempts || ' ' || ${why}
      FROM claimed c WHERE a.work_item_id = c.id AND a.status = 'running' AND a.attempt < c.attempts
    ), opened AS (
      INSERT INTO work_attempts (id, work_item_id, attempt, status, started_at, trace_id)
      SELECT gen_random_uuid(), c.id, c.attempts, 'running', now(), COALESCE(${traceId}::text, c.trace_id) FROM claimed c
      ON CONFLICT (work_item_id, attempt) DO UPDATE SET status = 'running', started_at = excluded.started_at, finished_at = NULL,
        error_class = NULL, error_message = NULL, trace_id = excluded.trace_id
      RETURNING id, work_item_id
    )`;
}

const turnJson = Prisma.raw(`CASE WHEN tu.id IS NULL THEN NULL ELSE json_build_object('id', tu.id, 'contextId', tu.context_id,
  'sessionId', tu.session_id, 'seq', tu.seq, 'role', tu.role, 'speaker', tu.speaker, 'content', tu.content,
  'attachmentText', tu.attachment_text, 'scope', recall_scope(tu.scope_set_id),
  'occurredAt', tu.occurred_at, 'traceId', tu.trace_id, 'createdAt', tu.created_at) END`);

const documentJson = Prisma.raw(`CASE WHEN d.id IS NULL THEN NULL ELSE json_build_object('id', d.id, 'contextId', d.context_id,
  'metadata', d.metadata, 'format', d.format, 'traceId', d.trace_id, 'createdAt', d.created_at, 'sourceType', s.type,
  'sourceMetadata', s.metadata) END`);

const factWriteJson = Prisma.raw(`CASE WHEN f.id IS NULL THEN NULL ELSE json_build_object('id', f.id, 'contextId', f.context_id,
  'text', f.text, 'scope', recall_scope(f.scope_set_id), 'traceId', f.trace_id, 'createdAt', f.created_at) END`);

/**
 * Whether an erasure deleted the subject (its tombstone), or its whole context (the context erasure's receipt),
 * and the work items with it: a job still queued for one has nothing to claim.
 */
export async function subjectErased(db: DbOrTx, job: { subjectId: string; contextId: string }): Promise<boolean> {
  if ((await db.erasedInput.count({ where: { inputId: job.subjectId } })) > 0) return true;
  return (await db.erasure.count({ where: { contextId: job.contextId, kind: "context" } })) > 0;
}
