// Uncertainties in truth maintenance: a contradiction between different sources with
// no clear winner becomes one (both values stay current), and a later fact about the
// same entity and key resolves the open ones it clarifies.
//
// What clarifies what:
// - an uncertainty the extractor recorded ("joked about being CEO, then corrected
//   themself") is clarified by any later fact about the same entity and key from
//   another source (the one that raised it cannot settle it), written in a scope
//   every reader of the uncertainty can see (fact scope ⊆ uncertainty scope);
// - a conflict between sources (fact_ids set) is clarified by a later fact in the same
//   scope from a turn or a direct write (somebody answering now), or by one whose event
//   time is after every conflicting value began. A further undated document is not a
//   clarification, it is one more side of the conflict, and joins it.
// A clarified conflict's values are ordered against the clarifying fact as if the rule
// in fact-origin.ts had ordered them, so the clarification supersedes the values it
// disagrees with.
import type { Tx, Uncertainty } from "@recall/db";
import type { Fact } from "./fact-store";
import { describeOrigin, originSourceId, type Stated } from "./fact-origin";
import { scopeVisible } from "../core/scope";
import { scopesOf } from "../core/scope-sets";

export interface UncertaintyReport {
  conflictUncertaintyIds: string[];
  resolvedUncertaintyIds: string[];
}

/** An open uncertainty with its scope's entries. */
export type OpenUncertainty = Uncertainty & { scope: string[] };

/** The open uncertainties about the fact's subject that `fact` might clarify: of its key, or of no key. */
export async function openUncertainties(tx: Tx, fact: Fact): Promise<OpenUncertainty[]> {
  const open = await tx.uncertainty.findMany({
    where: {
      contextId: fact.contextId,
      entityId: fact.subjectId,
      resolved: false,
      retractedAt: null,
      OR: [{ key: fact.key }, { key: null }],
    },
  });
  const entriesOf = await scopesOf(
    tx,
    open.map((u) => u.scopeSetId),
  );
  return open.map((u) => ({ ...u, scope: entriesOf(u.scopeSetId) }));
}

/** The open uncertainties each fact might clarify (as `openUncertainties` answers), from one read for all of them. */
export type OpenUncertaintiesByFact = (fact: Fact) => OpenUncertainty[];

export async function openUncertaintiesOf(tx: Tx, facts: readonly Fact[]): Promise<OpenUncertaintiesByFact> {
  if (facts.length === 0) return () => [];
  const open = await tx.uncertainty.findMany({
    where: {
      contextId: { in: [...new Set(facts.map((f) => f.contextId))] },
      entityId: { in: [...new Set(facts.map((f) => f.subjectId))] },
      resolved: false,
      retractedAt: null,
      OR: [{ key: { in: [...new Set(facts.map((f) => f.key))] } }, { key: null }],
    },
  });
  const entriesOf = await scopesOf(
    tx,
    open.map((u) => u.scopeSetId),
  );
  const scoped = open.map((u) => ({ ...u, scope: entriesOf(u.scopeSetId) }));
  return (fact) =>
    scoped.filter((u) => u.contextId === fact.contextId && u.entityId === fact.subjectId && (u.key === fact.key || u.key === null));
}

/** Resolves the open uncertainties `fact` clarifies; returns the ids of the conflicting facts it may now order. */
export async function resolveClarified(
  tx: Tx,
  fact: Fact,
  open: readonly OpenUncertainty[],
  group: readonly Fact[],
  stated: ReadonlyMap<string, Stated>,
  report: UncertaintyReport,
): Promise<Set<string>> {
  const clarified = open.filter((u) => clarifies(u, fact, group, stated));
  if (clarified.length === 0) return new Set();
  await tx.uncertainty.updateMany({
    where: { id: { in: clarified.map((u) => u.id) } },
    data: { resolved: true, resolvedAt: new Date(), resolvedBy: fact.assertionId },
  });
  report.resolvedUncertaintyIds.push(...clarified.map((u) => u.id));
  return new Set(clarified.flatMap((u) => u.factIds));
}

function clarifies(u: OpenUncertainty, fact: Fact, group: readonly Fact[], stated: ReadonlyMap<string, Stated>): boolean {
  const own = stated.get(fact.id)!;
  if (u.factIds.includes(fact.id) || u.createdAt >= fact.recordedAt) return false;
  const sourceId = originSourceId(own.origin);
  if (sourceId !== undefined && [u.turnId, u.documentId, u.factWriteId].includes(sourceId)) return false;
  if (u.factIds.length === 0) return scopeVisible(fact.scope, u.scope) && (u.key === fact.key || mentionsKey(u.about, fact.key));
  if (u.key !== fact.key || u.scopeSetId !== fact.scopeSetId) return false;
  if (own.origin.kind === "turn" || own.origin.kind === "fact_write") return true;
  const sides = group.filter((f) => u.factIds.includes(f.id));
  return own.eventTime !== null && sides.every((f) => own.eventTime! > f.validFrom);
}

/** "job title" mentions key `title`; an uncertainty without a key is matched by its words. */
function mentionsKey(about: string, key: string): boolean {
  const words = new Set(about.toLowerCase().split(/[^\p{L}\p{N}]+/u));
  return key.split("_").every((part) => words.has(part));
}

/** Records that `existing` and `incoming` disagree with no clear winner: one open uncertainty per entity, key and scope collects every side. */
export async function recordConflict(
  tx: Tx,
  existing: Fact,
  incoming: Fact,
  stated: ReadonlyMap<string, Stated>,
  report: UncertaintyReport,
  why?: string,
): Promise<void> {
  const open = await tx.uncertainty.findMany({
    where: {
      contextId: incoming.contextId,
      entityId: incoming.subjectId,
      key: incoming.key,
      resolved: false,
      retractedAt: null,
      NOT: { factIds: { isEmpty: true } },
    },
  });
  const current = open.find((u) => u.scopeSetId === incoming.scopeSetId);
  if (current) {
    const factIds = [...new Set([...current.factIds, existing.id, incoming.id])];
    if (factIds.length !== current.factIds.length) await tx.uncertainty.update({ where: { id: current.id }, data: { factIds } });
    if (!report.conflictUncertaintyIds.includes(current.id)) report.conflictUncertaintyIds.push(current.id);
    return;
  }
  const created = await tx.uncertainty.create({
    data: {
      contextId: incoming.contextId,
      about: await conflictAbout(tx, incoming),
      reason: await conflictReason(tx, [existing, incoming], stated, why),
      entityId: incoming.subjectId,
      key: incoming.key,
      scopeSetId: incoming.scopeSetId,
      factIds: [existing.id, incoming.id],
    },
  });
  report.conflictUncertaintyIds.push(created.id);
}

async function conflictAbout(tx: Tx, fact: Fact): Promise<string> {
  const entity = await tx.entity.findUnique({ where: { id: fact.subjectId }, select: { name: true } });
  return `${fact.key.replace(/_/g, " ")} of ${entity?.name ?? fact.subjectId}`;
}

async function conflictReason(tx: Tx, sides: readonly Fact[], stated: ReadonlyMap<string, Stated>, why?: string): Promise<string> {
  const shown = await Promise.all(sides.map(async (f) => `"${await displayValue(tx, f)}" (${describeOrigin(stated.get(f.id)!.origin)})`));
  if (why) return `${shown.join(" vs ")}: ${why}`;
  return `different sources disagree and nothing says which is newer: ${shown.join(" vs ")}; both values stay current until a later statement clarifies`;
}

async function displayValue(tx: Tx, fact: Fact): Promise<string> {
  if (fact.kind === "attribute") return fact.value;
  const object = await tx.entity.findUnique({ where: { id: fact.value }, select: { name: true } });
  return object?.name ?? fact.value;
}
