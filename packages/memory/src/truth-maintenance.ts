// truth_maintenance: applied after a commit, from its outbox event. Facts are never
// overwritten: a newer value of a single-valued predicate closes the older one
// (valid_to + superseded_by); revocations deactivate instructions; a new fact
// resolves the open uncertainties about the same entity and key.
import type { RevocationCandidate } from "@recall/extraction";
import { transaction, type Db, type Tx } from "@recall/db";

export const DEFAULT_SINGLE_VALUED = ["role", "title", "lives_in", "works_at", "employer", "email", "name"] as const;

export interface CommittedRefs {
  attributeIds?: string[];
  relationIds?: string[];
  revocationCandidateIds?: string[];
}

export interface TruthMaintenanceOptions {
  singleValued?: ReadonlySet<string>;
  /** The turn whose revocations this event carries. */
  turnId?: string;
}

export interface TruthMaintenanceReport {
  superseded: string[];
  revokedInstructionIds: string[];
  resolvedUncertaintyIds: string[];
}

interface Fact {
  id: string;
  validFrom: Date;
  recordedAt: Date;
}

export async function applyTruthMaintenance(
  db: Db,
  refs: CommittedRefs,
  options: TruthMaintenanceOptions = {},
): Promise<TruthMaintenanceReport> {
  const singleValued = options.singleValued ?? new Set<string>(DEFAULT_SINGLE_VALUED);
  return transaction(db, async (tx) => {
    const report: TruthMaintenanceReport = { superseded: [], revokedInstructionIds: [], resolvedUncertaintyIds: [] };
    for (const id of refs.attributeIds ?? []) await supersedeAttribute(tx, id, singleValued, report);
    for (const id of refs.relationIds ?? []) await supersedeRelation(tx, id, singleValued, report);
    for (const id of refs.revocationCandidateIds ?? []) await revoke(tx, id, options.turnId, report);
    return report;
  });
}

/** Orders two values of one single-valued fact by validity start, then by recording time. */
function newerOf<T extends Fact>(a: T, b: T): [older: T, newer: T] {
  const byValid = a.validFrom.getTime() - b.validFrom.getTime();
  const aOlder = byValid !== 0 ? byValid < 0 : a.recordedAt.getTime() <= b.recordedAt.getTime();
  return aOlder ? [a, b] : [b, a];
}

async function supersedeAttribute(tx: Tx, id: string, singleValued: ReadonlySet<string>, report: TruthMaintenanceReport): Promise<void> {
  const attr = await tx.attribute.findUnique({ where: { id } });
  if (!attr || attr.retractedAt) return;
  await resolveUncertainties(tx, attr.contextId, attr.entityId, attr.key, attr.assertionId, report);
  if (!singleValued.has(attr.key)) return;
  const current = await tx.attribute.findMany({
    where: { contextId: attr.contextId, entityId: attr.entityId, key: attr.key, id: { not: id }, supersededById: null, retractedAt: null },
  });
  for (const other of current) {
    if (other.value.trim().toLowerCase() === attr.value.trim().toLowerCase()) continue;
    const [older, newer] = newerOf(other, attr);
    await tx.attribute.update({ where: { id: older.id }, data: { validTo: newer.validFrom, supersededById: newer.id } });
    report.superseded.push(older.id);
  }
}

async function supersedeRelation(tx: Tx, id: string, singleValued: ReadonlySet<string>, report: TruthMaintenanceReport): Promise<void> {
  const rel = await tx.relation.findUnique({ where: { id } });
  if (!rel || rel.retractedAt || !singleValued.has(rel.predicate)) return;
  const current = await tx.relation.findMany({
    where: {
      contextId: rel.contextId,
      subjectId: rel.subjectId,
      predicate: rel.predicate,
      id: { not: id },
      supersededById: null,
      retractedAt: null,
    },
  });
  for (const other of current) {
    if (other.objectId === rel.objectId) continue;
    const [older, newer] = newerOf(other, rel);
    await tx.relation.update({ where: { id: older.id }, data: { validTo: newer.validFrom, supersededById: newer.id } });
    report.superseded.push(older.id);
  }
}

async function resolveUncertainties(
  tx: Tx,
  contextId: string,
  entityId: string,
  key: string,
  assertionId: string,
  report: TruthMaintenanceReport,
): Promise<void> {
  const open = await tx.uncertainty.findMany({ where: { contextId, entityId, resolved: false, OR: [{ key }, { key: null }] } });
  if (open.length === 0) return;
  await tx.uncertainty.updateMany({
    where: { id: { in: open.map((u) => u.id) } },
    data: { resolved: true, resolvedAt: new Date(), resolvedBy: assertionId },
  });
  report.resolvedUncertaintyIds.push(...open.map((u) => u.id));
}

async function revoke(tx: Tx, candidateId: string, turnId: string | undefined, report: TruthMaintenanceReport): Promise<void> {
  const candidate = await tx.knowledgeCandidate.findUnique({ where: { id: candidateId } });
  if (!candidate) return;
  const payload = candidate.payload as RevocationCandidate;
  const active = await tx.instruction.findMany({ where: { contextId: candidate.contextId, active: true } });
  const target = active.find((i) => i.id === payload.instruction_id) ?? bestMatch(active, payload.matches);
  if (!target) return;
  await tx.instruction.update({
    where: { id: target.id },
    data: { active: false, revokedAt: new Date(), revokedByTurnId: turnId ?? null },
  });
  report.revokedInstructionIds.push(target.id);
}

function words(text: string): Set<string> {
  return new Set(
    text
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter((w) => w.length > 2),
  );
}

/** The active instruction sharing the most words with the revocation, if any share at least one. */
function bestMatch<T extends { label: string; description: string }>(active: T[], matches: string): T | undefined {
  const wanted = words(matches);
  let best: T | undefined;
  let bestScore = 0;
  for (const instruction of active) {
    const have = words(`${instruction.label} ${instruction.description}`);
    const score = [...wanted].filter((w) => have.has(w)).length;
    if (score > bestScore) [best, bestScore] = [instruction, score];
  }
  return best;
}
