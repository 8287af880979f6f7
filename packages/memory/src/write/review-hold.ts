// Holding candidates for review, and closing the reviews a review commit wrote, inside the commit's transaction
// (write/commit.ts). A held candidate is `pending_review` with one reviews row; `review.pending` is announced to
// the context's webhooks once per holding commit.
import type { Tx } from "@recall/db";

export interface HoldingCommit {
  contextId: string;
  workItemId: string;
  subjectType: string;
  subjectId: string;
  turnId?: string;
  documentId?: string;
}

/** Marks the candidates pending review and opens their reviews, in candidate order. Answers how many were held. */
export async function holdForReview(tx: Tx, source: HoldingCommit, candidateIds: readonly string[]): Promise<number> {
  if (candidateIds.length === 0) return 0;
  const ids = [...candidateIds];
  await tx.$executeRaw`UPDATE knowledge_candidates SET status = 'pending_review' WHERE id = ANY(${ids}::uuid[])`;
  const rows = await tx.$queryRaw<{ session_id: string | null }[]>`
    INSERT INTO reviews (id, context_id, candidate_id, subject_type, subject_id, session_id, kind, memory_category)
    SELECT gen_random_uuid(), c.context_id, c.id, c.subject_type, c.subject_id, t.session_id, c.kind,
      CASE WHEN c.kind IN ('entity', 'attribute', 'relation') THEN (c.payload->>'memory_category')::"MemoryCategory" END
    FROM knowledge_candidates c LEFT JOIN turns t ON t.id = c.turn_id AND t.context_id = c.context_id
    WHERE c.id = ANY(${ids}::uuid[])
    ORDER BY c.ordinal
    ON CONFLICT (candidate_id) DO NOTHING
    RETURNING session_id::text`;
  const held = rows.length;
  const sessionId = rows[0]?.session_id ?? null;
  await tx.$queryRaw`SELECT recall_webhook_emit(${source.contextId}::uuid, 'review.pending',
    jsonb_strip_nulls(jsonb_build_object('subject_type', ${source.subjectType}::text, 'turn_id', ${source.turnId ?? null}::text,
      'document_id', ${source.documentId ?? null}::text, 'session_id', ${sessionId}::text, 'pending', ${held}::int)),
    ${`review.pending:${source.workItemId}`})::text`;
  return held;
}

/**
 * The approved reviews of a review commit end `committed` once truth maintenance applied what it wrote (as a turn
 * counts as committed then), or `withdrawn` when the commit found its input retracted and wrote nothing.
 */
export async function closeReviewCommit(tx: Tx, reviewCommitId: string, outcome: "committed" | "withdrawn"): Promise<void> {
  if (outcome === "committed") {
    await tx.$executeRaw`UPDATE reviews SET status = 'committed', committed_at = now()
      WHERE commit_id = ${reviewCommitId}::uuid AND status = 'approved'`;
    return;
  }
  await tx.$executeRaw`UPDATE reviews SET status = 'withdrawn' WHERE commit_id = ${reviewCommitId}::uuid AND status = 'approved'`;
  await tx.$executeRaw`UPDATE knowledge_candidates SET status = 'rejected'
    WHERE id IN (SELECT candidate_id FROM reviews WHERE commit_id = ${reviewCommitId}::uuid AND status = 'withdrawn')`;
}

/** A retracted input's open reviews are withdrawn: nothing it said is to be approved any more. */
export async function withdrawReviews(tx: Tx, contextId: string, subjectId: string): Promise<number> {
  const ids = await tx.$queryRaw<{ candidate_id: string }[]>`
    UPDATE reviews SET status = 'withdrawn', decided_at = coalesce(decided_at, now())
    WHERE context_id = ${contextId}::uuid AND subject_id = ${subjectId}::uuid AND status IN ('pending', 'approved')
    RETURNING candidate_id::text`;
  if (ids.length === 0) return 0;
  await tx.$executeRaw`UPDATE knowledge_candidates SET status = 'rejected' WHERE id = ANY(${ids.map((r) => r.candidate_id)}::uuid[])`;
  return ids.length;
}
