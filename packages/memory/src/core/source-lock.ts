// A retraction and a commit of the same source must not pass each other. Both take one advisory
// lock on the source id: the retraction exclusively, commits and truth maintenance shared (they
// never block one another). So a commit either finishes before the retraction reads what is
// there to retract, or starts after the retraction row is committed and finds it; before this,
// a retraction sent while the commit was running saw nothing yet, wrote nothing, and the commit
// then made the retracted turn's facts current.
import { holdLock, lockKey, type Tx } from "@recall/db";

export async function holdSourceExclusive(tx: Tx, sourceId: string): Promise<void> {
  await holdLock(tx, lockKey("retract", sourceId));
}

export async function holdSourceShared(tx: Tx, sourceId: string): Promise<void> {
  await holdLock(tx, lockKey("retract", sourceId), "shared");
}

/** The lock a commit of the source holds (shared) against its retraction (exclusive), to take with others at once. */
export function sourceSharedLock(sourceId: string): { key: string; mode: "shared" } {
  return { key: lockKey("retract", sourceId), mode: "shared" };
}

/** Whether the source was retracted (or a retraction of it waits for its commit); call holding the lock. */
export async function isSourceRetracted(tx: Tx, sourceId: string, contextId?: string): Promise<boolean> {
  return (await tx.retraction.findFirst({ where: { contextId, sourceId }, select: { id: true } })) !== null;
}

/** The commit found the retraction and wrote nothing: the retractions waiting for it are applied. */
export async function markRetractionsApplied(tx: Tx, contextId: string, sourceId: string): Promise<void> {
  await tx.retraction.updateMany({ where: { contextId, sourceId, pending: true }, data: { pending: false, appliedAt: new Date() } });
}
