// Revocations deactivate instructions, never delete them: the row keeps active=false,
// revoked_at and the revoking turn. A turn may only revoke what it can see (the
// instruction's scope ⊆ the turn's scope, see scope.ts): alice saying "stop using
// bullet points" ends her instruction and an org-wide one, never bob's.
import { candidatePayload } from "@recall/contracts";
import type { Instruction, Tx } from "@recall/db";
import { scopeVisible } from "../core/scope";
import { scopesOf } from "../core/scope-sets";

export interface Revoker {
  /** The scope the revoking statement was made in. */
  scope: readonly string[];
  turnId?: string;
}

/**
 * Deactivates the instruction the revocation names, and every visible restatement of it (the
 * same directive given again: readers show those as one, so one revocation ends them all);
 * returns their ids, none when nothing visible matches.
 */
export async function revokeInstruction(tx: Tx, candidateId: string, revoker: Revoker): Promise<string[]> {
  const candidate = await tx.knowledgeCandidate.findUnique({ where: { id: candidateId } });
  if (!candidate) return [];
  const payload = candidatePayload("revocation", candidate.payload);
  const active = await tx.instruction.findMany({
    where: { contextId: candidate.contextId, active: true, retractedAt: null },
    orderBy: { createdAt: "asc" },
  });
  const entriesOf = await scopesOf(
    tx,
    active.map((i) => i.scopeSetId),
  );
  const visible = active.filter((i) => scopeVisible(entriesOf(i.scopeSetId), revoker.scope));
  const target = visible.find((i) => i.id === payload.instruction_id) ?? bestMatch(visible, payload.matches);
  if (!target) return [];
  const ids = visible.filter((i) => sameDirective(i, target)).map((i) => i.id);
  await tx.instruction.updateMany({
    where: { id: { in: ids } },
    data: { active: false, revokedAt: new Date(), revokedByTurnId: revoker.turnId ?? candidate.turnId ?? null },
  });
  return ids;
}

/** The same directive: equal descriptions, ignoring case and surrounding space (directive-reader.ts shows them as one). */
export function sameDirective(a: Pick<Instruction, "description">, b: Pick<Instruction, "description">): boolean {
  return a.description.trim().toLowerCase() === b.description.trim().toLowerCase();
}

function words(text: string): Set<string> {
  return new Set(
    text
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter((w) => w.length > 2),
  );
}

/** The active instruction sharing the most words with the revocation, if any share at least one; the newest wins a tie. */
function bestMatch(active: readonly Instruction[], matches: string): Instruction | undefined {
  const wanted = words(matches);
  let best: Instruction | undefined;
  let bestScore = 0;
  for (const instruction of active) {
    const have = words(`${instruction.label} ${instruction.description}`);
    const score = [...wanted].filter((w) => have.has(w)).length;
    if (score > 0 && score >= bestScore) [best, bestScore] = [instruction, score];
  }
  return best;
}
