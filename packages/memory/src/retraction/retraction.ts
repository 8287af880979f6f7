// Delete by source: retract everything derived from one document, one turn or one
// direct write, in one transaction, and keep an audit row (`retractions`) saying what
// was retracted and why. Nothing is deleted: rows get retracted_at, so history and
// provenance still show them. What the retracted facts had done is undone where
// that is right:
// - facts they had superseded are reopened (valid_to restored from the supersession
//   log) and placed again among the remaining values, so in a chain A → B → C with B
//   retracted, A is closed by C again rather than left current;
// - instructions the retracted turn had revoked are active again;
// - uncertainties they had resolved are open again, and conflicts they were one side
//   of shrink (or are retracted when one side is left);
// - entities left without any mention from a live source are retracted too.
// A source retracted while its pipeline is still running (even before its extraction, or in a
// window) commits nothing later: the retraction row is recorded at once, marked pending, and
// commit.ts finds it under the source's lock (source-lock.ts).
import { toJson, transaction, type Db, type Tx } from "@recall/db";
import { loadFacts, type Fact } from "../truth/fact-store";
import { sourceCommitted } from "../write/commit-records";
import { retractEntities } from "./retraction-entities";
import { holdSourceExclusive } from "../core/source-lock";
import { withdrawReviews } from "../write/review-hold";
import { reopenFact } from "../truth/supersession";
import { DEFAULT_SINGLE_VALUED } from "../core/fact-keys";
import { maintainFacts } from "../truth/truth-maintenance";

export type RetractableSource = "turn" | "document" | "fact_write";

export interface RetractSourceInput {
  contextId: string;
  sourceType: RetractableSource;
  sourceId: string;
  reason: string;
  /** Single-valued predicates for re-placing reopened facts; their own keys are always included. */
  singleValued?: ReadonlySet<string>;
}

export interface RetractionReport {
  /** The audit row, or null when the source had nothing left to retract. */
  retractionId: string | null;
  /**
   * The source's extraction had not committed yet: the retraction is recorded, and its commit
   * will write nothing (the counts are what had been committed so far, often none).
   */
  pending: boolean;
  assertionIds: string[];
  attributeIds: string[];
  relationIds: string[];
  instructionIds: string[];
  reactivatedInstructionIds: string[];
  uncertaintyIds: string[];
  reopenedUncertaintyIds: string[];
  reopenedFactIds: string[];
  entityIds: string[];
  /** Reviews of the source still pending (or approved and not yet committed), withdrawn: they will never commit. */
  withdrawnReviews: number;
}

const COLUMN: Record<RetractableSource, "turnId" | "documentId" | "factWriteId"> = {
  turn: "turnId",
  document: "documentId",
  fact_write: "factWriteId",
};

export async function retractSource(db: Db, input: RetractSourceInput): Promise<RetractionReport> {
  return transaction(
    db,
    async (tx) => {
      await holdSourceExclusive(tx, input.sourceId);
      const report = emptyReport();
      report.pending = await extractionUncommitted(tx, input);
      await undoSource(tx, input, new Date(), report);
      report.withdrawnReviews = await withdrawReviews(tx, input.contextId, input.sourceId);
      report.retractionId = await recordRetraction(tx, input, report);
      return report;
    },
    { timeoutMs: 60_000 },
  );
}

/**
 * What a retraction undoes, in the caller's transaction and under its source lock, with no audit row: erasure
 * (../erasure) runs it first, so what the erased source had changed is undone exactly as a retraction would, and
 * then deletes the rows.
 */
export async function undoSourceInTransaction(tx: Tx, input: RetractSourceInput, now: Date): Promise<RetractionReport> {
  const report = emptyReport();
  await undoSource(tx, input, now, report);
  return report;
}

async function undoSource(tx: Tx, input: RetractSourceInput, now: Date, report: RetractionReport): Promise<void> {
  const facts = await retractFacts(tx, input, now, report);
  await retractInstructions(tx, input, now, report);
  await retractUncertainties(tx, input, facts, now, report);
  await reopenSuperseded(tx, input, facts, report);
  report.entityIds = await retractEntities(tx, { contextId: input.contextId, [COLUMN[input.sourceType]]: input.sourceId }, now);
}

function emptyReport(): RetractionReport {
  return {
    retractionId: null,
    pending: false,
    assertionIds: [],
    attributeIds: [],
    relationIds: [],
    instructionIds: [],
    reactivatedInstructionIds: [],
    uncertaintyIds: [],
    reopenedUncertaintyIds: [],
    reopenedFactIds: [],
    entityIds: [],
    withdrawnReviews: 0,
  };
}

function sourceWhere(input: RetractSourceInput) {
  return { contextId: input.contextId, [COLUMN[input.sourceType]]: input.sourceId, retractedAt: null };
}

async function retractFacts(tx: Tx, input: RetractSourceInput, now: Date, report: RetractionReport): Promise<Fact[]> {
  const assertions = await tx.assertion.findMany({ where: sourceWhere(input), select: { id: true } });
  report.assertionIds = assertions.map((a) => a.id);
  if (assertions.length === 0) return [];
  await tx.assertion.updateMany({ where: { id: { in: report.assertionIds } }, data: { retractedAt: now } });
  const byAssertion = { assertionId: { in: report.assertionIds }, retractedAt: null };
  report.attributeIds = (await tx.attribute.findMany({ where: byAssertion, select: { id: true } })).map((a) => a.id);
  report.relationIds = (await tx.relation.findMany({ where: byAssertion, select: { id: true } })).map((r) => r.id);
  await tx.attribute.updateMany({ where: { id: { in: report.attributeIds } }, data: { retractedAt: now } });
  await tx.relation.updateMany({ where: { id: { in: report.relationIds } }, data: { retractedAt: now } });
  return [...(await loadFacts(tx, "attribute", report.attributeIds)), ...(await loadFacts(tx, "relation", report.relationIds))];
}

async function retractInstructions(tx: Tx, input: RetractSourceInput, now: Date, report: RetractionReport): Promise<void> {
  const own = await tx.instruction.findMany({ where: sourceWhere(input), select: { id: true } });
  report.instructionIds = own.map((i) => i.id);
  await tx.instruction.updateMany({ where: { id: { in: report.instructionIds } }, data: { retractedAt: now, active: false } });
  if (input.sourceType !== "turn") return;
  const revoked = await tx.instruction.findMany({
    where: { contextId: input.contextId, revokedByTurnId: input.sourceId, retractedAt: null },
  });
  report.reactivatedInstructionIds = revoked.map((i) => i.id);
  await tx.instruction.updateMany({
    where: { id: { in: report.reactivatedInstructionIds } },
    data: { active: true, revokedAt: null, revokedByTurnId: null },
  });
}

async function retractUncertainties(tx: Tx, input: RetractSourceInput, facts: readonly Fact[], now: Date, report: RetractionReport) {
  const own = await tx.uncertainty.findMany({ where: sourceWhere(input), select: { id: true } });
  report.uncertaintyIds = own.map((u) => u.id);
  await tx.uncertainty.updateMany({ where: { id: { in: report.uncertaintyIds } }, data: { retractedAt: now } });
  await shrinkConflicts(tx, input.contextId, new Set(facts.map((f) => f.id)), now, report);
  const resolvedByRetracted = await tx.uncertainty.findMany({
    where: { contextId: input.contextId, resolvedBy: { in: report.assertionIds }, retractedAt: null },
    select: { id: true },
  });
  report.reopenedUncertaintyIds = resolvedByRetracted.map((u) => u.id);
  await tx.uncertainty.updateMany({
    where: { id: { in: report.reopenedUncertaintyIds } },
    data: { resolved: false, resolvedAt: null, resolvedBy: null },
  });
}

/** A conflict loses its retracted sides; with one side left there is nothing to be uncertain about. */
async function shrinkConflicts(tx: Tx, contextId: string, retracted: ReadonlySet<string>, now: Date, report: RetractionReport) {
  if (retracted.size === 0) return;
  const conflicts = await tx.uncertainty.findMany({ where: { contextId, retractedAt: null, factIds: { hasSome: [...retracted] } } });
  for (const u of conflicts) {
    const factIds = u.factIds.filter((id) => !retracted.has(id));
    const data = factIds.length < 2 ? { retractedAt: now } : { factIds };
    await tx.uncertainty.update({ where: { id: u.id }, data });
    if (factIds.length < 2) report.uncertaintyIds.push(u.id);
  }
}

/** Facts the retracted ones had superseded get their previous validity back, then are placed again. */
async function reopenSuperseded(tx: Tx, input: RetractSourceInput, retracted: readonly Fact[], report: RetractionReport) {
  const steps = await tx.supersession.findMany({ where: { newerId: { in: retracted.map((f) => f.id) }, undoneAt: null } });
  const reopened: Fact[] = [];
  for (const kind of ["attribute", "relation"] as const) {
    const olderIds = steps.filter((s) => s.factKind === kind).map((s) => s.olderId);
    for (const fact of await loadFacts(tx, kind, olderIds)) {
      if (fact.retractedAt) continue;
      await reopenFact(tx, fact);
      reopened.push(fact);
    }
  }
  report.reopenedFactIds = reopened.map((f) => f.id);
  const singleValued = new Set([...(input.singleValued ?? DEFAULT_SINGLE_VALUED), ...reopened.map((f) => f.key)]);
  await maintainFacts(tx, reopened, singleValued);
}

/**
 * Whether the source's commit has yet to run: it has no commit record (commit_records, written by the commit itself)
 * while it is still being extracted, alone or in a window, or waits to commit. A source whose extraction failed for
 * good counts as uncommitted too: an operator's retry would still commit it, and must not.
 */
async function extractionUncommitted(tx: Tx, input: RetractSourceInput): Promise<boolean> {
  return !(await sourceCommitted(tx, input.contextId, input.sourceId));
}

/**
 * The audit row: whenever something was retracted or withdrawn (reviews still pending are a source's only outputs
 * under review), and for a source's first retraction even when it had taught nothing. A repeat that changes nothing
 * writes none (null); a pending one is recorded once.
 */
async function recordRetraction(tx: Tx, input: RetractSourceInput, report: RetractionReport): Promise<string | null> {
  if (changed(report)) return audit(tx, input, report);
  const where = { contextId: input.contextId, sourceId: input.sourceId };
  if (report.pending) {
    const waiting = await tx.retraction.findFirst({ where: { ...where, pending: true } });
    return waiting?.id ?? (await audit(tx, input, report));
  }
  const earlier = await tx.retraction.findFirst({ where, select: { id: true } });
  return earlier ? null : audit(tx, input, report);
}

function changed(report: RetractionReport): boolean {
  return report.withdrawnReviews > 0 || Object.values(report).some((v) => Array.isArray(v) && v.length > 0);
}

async function audit(tx: Tx, input: RetractSourceInput, report: RetractionReport): Promise<string> {
  const { retractionId: _id, pending, ...summary } = report;
  const row = await tx.retraction.create({
    data: {
      contextId: input.contextId,
      sourceType: input.sourceType,
      sourceId: input.sourceId,
      reason: input.reason,
      summary: toJson(summary),
      pending,
    },
  });
  return row.id;
}
