// A new version of a document retires the old one once its own facts are in place (retraction/document-versions.ts).
// Under review, "in place" waits for the reviews: while any of the new version's candidates is pending or approved
// but not yet committed, the old version's facts stay, so what the new version restates is never absent while it
// waits. The last review decided ends the wait: an approval's commit retires it in its truth maintenance; a
// rejection opens an empty review commit whose truth maintenance does.
//
// Both checks take one lock per document (an advisory transaction lock) and read the reviews under it: of a
// rejection and a commit's truth maintenance at once, the later one sees the other's outcome, so one retires.
import { holdLock, lockKey, type Db, type Tx } from "@recall/db";

const lockDocument = (tx: Tx, documentId: string) => holdLock(tx, lockKey("document-versions", documentId));

async function openReviews(tx: Tx, documentId: string): Promise<boolean> {
  const [row] = await tx.$queryRaw<{ open: boolean }[]>`
    SELECT EXISTS (SELECT 1 FROM reviews WHERE subject_type = 'document' AND subject_id = ${documentId}::uuid
      AND status IN ('pending', 'approved')) AS open`;
  return Boolean(row?.open);
}

/** Whether the document still has reviews to decide or to commit: its previous version is not retired yet. */
export async function documentAwaitsReview(db: Db, documentId: string): Promise<boolean> {
  return db.$transaction(async (tx) => {
    await lockDocument(tx, documentId);
    return openReviews(tx, documentId);
  });
}

/**
 * Of the documents whose reviews a rejection just closed (in `tx`), those with a previous version and no review
 * left open: their retirement is the caller's to queue (an empty review commit).
 */
export async function versionsToRetireAfterRejection(tx: Tx, documentIds: readonly string[]): Promise<string[]> {
  const ready: string[] = [];
  for (const documentId of [...new Set(documentIds)].sort()) {
    await lockDocument(tx, documentId);
    const [doc] = await tx.$queryRaw<{ previous: string | null }[]>`
      SELECT previous_version_id::text AS previous FROM documents WHERE id = ${documentId}::uuid`;
    if (doc?.previous && !(await openReviews(tx, documentId))) ready.push(documentId);
  }
  return ready;
}
