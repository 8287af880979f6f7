// An import must not pass an erasure of its context (issue 42). A batch that read the tombstones before an erasure
// committed, then inserted a row the erasure had just deleted (its insert waits on the deleted row and, once the
// erasure commits, finds the id free), brought the erased input back beside its own tombstone. Both take one
// advisory lock per context, first in their transaction: erasures shared (they never block one another; their inputs
// have locks of their own), an import's batch exclusively. So a batch runs either before an erasure reads (what it
// wrote is then erased with the rest) or after its receipt, when its tombstones are committed and the batch's check
// (read after the lock, under READ COMMITTED) sees them.
import { holdLock, lockKey, type Tx } from "@recall/db";

/** An erasure of inputs of the context; before any other lock it takes. */
export async function holdErasureShared(tx: Tx, contextId: string): Promise<void> {
  await holdLock(tx, lockKey("erasure", contextId), "shared");
}

/** One import batch into the context; before it reads the tombstones. */
export async function holdErasureExclusive(tx: Tx, contextId: string): Promise<void> {
  await holdLock(tx, lockKey("erasure", contextId));
}
