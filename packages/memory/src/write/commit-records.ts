// Memory's record of each commit (commit_records, written by commit.ts in the commit's transaction): the one place
// that says whether a source has committed and what a commit produced. Retraction, document versions and truth
// maintenance's callers read it here, never the pipeline's work items.
import { CommittedRefs } from "@recall/contracts";
import type { DbOrTx } from "@recall/db";

/** What the commit of this unit produced, from its record; undefined when it has not committed. */
export async function committedRefs(db: DbOrTx, commitId: string): Promise<CommittedRefs | undefined> {
  const record = await db.commitRecord.findUnique({ where: { commitId }, select: { refs: true } });
  return record ? CommittedRefs.parse(record.refs) : undefined;
}

/** What each of these commits produced, from their records in one read; a commit that has not committed is absent. */
export async function committedRefsMany(db: DbOrTx, commitIds: readonly string[]): Promise<Map<string, CommittedRefs>> {
  if (commitIds.length === 0) return new Map();
  const records = await db.commitRecord.findMany({ where: { commitId: { in: [...commitIds] } }, select: { commitId: true, refs: true } });
  return new Map(records.map((r) => [r.commitId, CommittedRefs.parse(r.refs)]));
}

/** Whether the source has committed (one commit a source): false while it is on its way, failed, or never ran. */
export async function sourceCommitted(db: DbOrTx, contextId: string, sourceId: string): Promise<boolean> {
  return (await db.commitRecord.count({ where: { contextId, subjectId: sourceId } })) > 0;
}
