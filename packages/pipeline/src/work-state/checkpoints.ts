// Checkpoints: what a stage keeps on its item's payload between attempts, so a retry skips
// finished steps (truth maintenance applied, an entity question answered) or shows where the
// last attempt stopped. Each is one statement, inside the caller's transaction when the
// checkpoint must commit exactly with the effects it marks.
import type { DbOrTx } from "@recall/db";
import { jsonb } from "./item-row";
import type { StageOutput } from "./finish-item";

/** The stage's result on its item: merged into the payload, or in place of it. */
export async function writeCheckpoint(db: DbOrTx, workItemId: string, output: StageOutput): Promise<void> {
  const value = jsonb(output.value);
  if (output.replace) await db.$executeRaw`UPDATE work_items SET payload = ${value} WHERE id = ${workItemId}::uuid`;
  else await db.$executeRaw`UPDATE work_items SET payload = payload || ${value} WHERE id = ${workItemId}::uuid`;
}

/**
 * Truth maintenance applied: set in the transaction that applied it, so a retry of the item's
 * later step (embedding) skips it; kept across operator retries, which start from the same item.
 */
export async function markTruthMaintained(db: DbOrTx, workItemId: string): Promise<void> {
  await db.$executeRaw`UPDATE work_items SET payload = payload || jsonb_build_object('truth_maintained_at', now()) WHERE id = ${workItemId}::uuid`;
}

/** A versioned document's facts are placed (its previous version not yet retired): a retry does not place them again. */
export async function markFactsPlaced(db: DbOrTx, workItemId: string): Promise<void> {
  await db.$executeRaw`UPDATE work_items SET payload = payload || jsonb_build_object('facts_placed_at', now()) WHERE id = ${workItemId}::uuid`;
}

/** The payload a successful truth-maintenance attempt leaves when it applied and finished in one transaction. */
export function truthMaintainedNow(): StageOutput {
  return { value: { truth_maintained_at: new Date().toISOString() } };
}
