// Closing, re-pointing and reopening facts. The fact's own columns (valid_to,
// superseded_by) are the current view; every step is also logged in `supersessions`
// with the system time it was taken (and undone), which is what lets history be read
// as of any system time and lets a retraction restore the valid_to a fact had before.
import type { Tx } from "@recall/db";
import { setClosure, type Fact } from "./fact-store";

/**
 * The older value ends at `closeAt` (by default where the newer begins; time-rule.ts decides),
 * unless its source already ended it earlier.
 */
export async function closeFact(
  tx: Tx,
  older: Fact,
  newer: Fact,
  closeAt = newer.validFrom,
  previousValidTo = older.validTo,
): Promise<void> {
  const validTo = previousValidTo && previousValidTo < closeAt ? previousValidTo : closeAt;
  await tx.supersession.create({
    data: { contextId: older.contextId, factKind: older.kind, olderId: older.id, newerId: newer.id, validTo, previousValidTo },
  });
  await setClosure(tx, older, validTo, newer.id);
}

/**
 * A fact that arrives between two known values (CTO in January, CEO in March, then "VP
 * since February") takes its place in the chain: the older value now ends at the new
 * one, not at its old successor.
 */
export async function repointFact(tx: Tx, older: Fact, newer: Fact): Promise<void> {
  const previousValidTo = await undoActive(tx, older.id);
  await closeFact(tx, older, newer, newer.validFrom, previousValidTo);
}

/** Undoes the active step that closed the fact and restores the valid_to it had before. */
export async function reopenFact(tx: Tx, fact: Fact): Promise<void> {
  const previousValidTo = await undoActive(tx, fact.id);
  await setClosure(tx, fact, previousValidTo, null);
}

/** Marks the fact's active supersession undone; returns the valid_to the fact had before it. */
async function undoActive(tx: Tx, olderId: string): Promise<Date | null> {
  const active = await tx.supersession.findFirst({ where: { olderId, undoneAt: null }, orderBy: { createdAt: "desc" } });
  if (!active) return null;
  await tx.supersession.updateMany({ where: { olderId, undoneAt: null }, data: { undoneAt: new Date() } });
  return active.previousValidTo;
}
