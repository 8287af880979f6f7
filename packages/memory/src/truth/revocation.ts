// Revocations deactivate instructions, never delete them: the row keeps active=false,
// revoked_at and the revoking turn. A turn may only revoke what it can see (the
// instruction's scope ⊆ the turn's scope, see scope.ts): alice saying "stop using
// bullet points" ends her instruction and an org-wide one, never bob's.
import { candidatePayload } from "@recall/contracts";
import type { Instruction, Tx } from "@recall/db";
import { scopeVisible } from "../scope";

export interface Revoker {
  /** The scope the revoking statement was made in. */
  scope: readonly string[];
  turnId?: string;
}

/** Deactivates the instruction the revocation names; returns its id, or undefined when none visible matches. */
export async function revokeInstruction(tx: Tx, candidateId: string, revoker: Revoker): Promise<string | undefined> {
  const candidate = await tx.knowledgeCandidate.findUnique({ where: { id: candidateId } });
  if (!candidate) return undefined;
  const payload = candidatePayload("revocation", candidate.payload);
  const active = await tx.instruction.findMany({
    where: { contextId: candidate.contextId, active: true, retractedAt: null },
    orderBy: { createdAt: "asc" },
  });
  const visible = active.filter((i) => scopeVisible(i.scope, revoker.scope));
  const target = visible.find((i) => i.id === payload.instruction_id) ?? bestMatch(visible, payload.matches);
  if (!target) return undefined;
  await tx.instruction.update({
    where: { id: target.id },
    data: { active: false, revokedAt: new Date(), revokedByTurnId: revoker.turnId ?? candidate.turnId ?? null },
  });
  return target.id;
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
