// A fact's valid_to and superseded_by as the store knew them at a given system time,
// rebuilt from the supersession log (supersession.ts writes it).
import type { Db, Supersession } from "@recall/db";

export interface Closure {
  validTo: Date | null;
  supersededBy: string | null;
}

export async function loadClosures(db: Db, factIds: readonly string[]): Promise<Map<string, Supersession[]>> {
  if (factIds.length === 0) return new Map();
  const steps = await db.supersession.findMany({ where: { olderId: { in: [...factIds] } }, orderBy: { createdAt: "asc" } });
  const byFact = new Map<string, Supersession[]>();
  for (const s of steps) byFact.set(s.olderId, [...(byFact.get(s.olderId) ?? []), s]);
  return byFact;
}

/**
 * The step in force at `at` decides; with none in force the fact had the validity its
 * source stated, which the first step recorded as previous_valid_to before changing it.
 * A fact never superseded has its own columns unchanged.
 */
export function closureAt(
  fact: { validTo: Date | null; supersededById: string | null },
  steps: readonly Supersession[],
  at: Date,
): Closure {
  if (steps.length === 0) return { validTo: fact.validTo, supersededBy: fact.supersededById };
  const inForce = steps.filter((s) => s.createdAt <= at && (s.undoneAt === null || s.undoneAt > at)).at(-1);
  if (inForce) return { validTo: inForce.validTo, supersededBy: inForce.newerId };
  return { validTo: steps[0]!.previousValidTo, supersededBy: null };
}
