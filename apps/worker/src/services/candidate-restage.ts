// Staging a subject's candidates again (a retry, an operator's re-extraction, an extract-again once a model is set)
// without touching what already left staging: candidates committed, or held or decided in review, are memory's (or a
// person's) and stay; the rest are replaced. A new candidate that says what a kept one says (the same fact, entity,
// instruction) is dropped, so an extract-again after the rules' partial commit stores nothing twice.
import type { CandidateStatus, Prisma, Tx } from "@recall/db";

const SETTLED: CandidateStatus[] = ["committed", "pending_review", "approved", "rejected"];

type Row = Prisma.KnowledgeCandidateCreateManyInput;

/** Replaces the unsettled candidates of these work items with `rows` (each naming its work item); answers how many were dropped as said already. */
export async function restageCandidates(tx: Tx, workItemIds: readonly string[], rows: readonly Row[]): Promise<number> {
  if (workItemIds.length === 0) return 0;
  const kept = await tx.knowledgeCandidate.findMany({
    where: { workItemId: { in: [...workItemIds] }, status: { in: SETTLED } },
    select: { workItemId: true, ordinal: true, kind: true, payload: true },
  });
  await tx.knowledgeCandidate.deleteMany({ where: { workItemId: { in: [...workItemIds] }, status: { notIn: SETTLED } } });
  const said = new Set(kept.map((c) => `${c.workItemId}|${candidateKey(c.kind, c.payload)}`));
  const next = new Map<string, number>();
  for (const c of kept) next.set(c.workItemId, Math.max(next.get(c.workItemId) ?? 0, c.ordinal + 1));
  const fresh: Row[] = [];
  for (const row of rows) {
    const key = `${row.workItemId}|${candidateKey(row.kind, row.payload)}`;
    if (said.has(key)) continue;
    said.add(key);
    const ordinal = next.get(row.workItemId);
    // Numbered after the kept ones (ordinals are unique per work item); with none kept, as the extraction numbered them.
    if (ordinal === undefined) fresh.push(row);
    else {
      fresh.push({ ...row, ordinal });
      next.set(row.workItemId, ordinal + 1);
    }
  }
  if (fresh.length > 0) await tx.knowledgeCandidate.createMany({ data: fresh });
  return rows.length - fresh.length;
}

/** What a candidate says, without its quote, confidence or wording of case and spacing. */
export function candidateKey(kind: string, payload: unknown): string {
  const p = (payload ?? {}) as Record<string, unknown>;
  const n = (v: unknown) => (typeof v === "string" ? v.normalize("NFKC").trim().replace(/\s+/g, " ").toLowerCase() : "");
  switch (kind) {
    case "entity":
      return `entity|${n(p["name"])}`;
    case "attribute":
      return `attribute|${n(p["entity"])}|${n(p["key"])}|${n(p["value"])}`;
    case "relation":
      return `relation|${n(p["subject"])}|${n(p["verb"])}|${n(p["object"])}`;
    case "instruction":
      return `instruction|${n(p["label"])}|${n(p["description"])}`;
    case "revocation":
      return `revocation|${n(p["matches"])}`;
    default:
      return `${kind}|${n(p["about"])}|${n(p["entity"])}|${n(p["key"])}`;
  }
}
