// Reading facts on both time axes.
// - Valid time (valid_from, valid_to): when a fact was true in the world. "What was
//   Alice's role on 1 March?" asks validAt.
// - System time (recorded_at, retracted_at, and the supersession log's created_at /
//   undone_at): when the store knew it. "What did we believe last Tuesday?" asks
//   knownAt. A fact recorded after knownAt is not shown; one retracted after knownAt
//   is; a supersession taken after knownAt had not closed its fact yet.
// Both can be combined ("what did we believe last Tuesday her role was on 1 March").
import type { Assertion, Attribute, Db, Relation } from "@recall/db";
import { loadClosures, closureAt, type Closure } from "../truth/fact-closure";
import { scopeVisible, type Scope } from "../core/scope";
import type { FactCommon } from "../read/read-types";

export interface FactHistoryQuery {
  contextId: string;
  entityId: string;
  /** An attribute key or relation predicate; all of them when omitted. */
  key?: string;
  /** The reader's scope (see scope.ts); omitted = no scope filter, for operators and audits. */
  scope?: Scope;
  /** System time; omitted = now. */
  knownAt?: Date;
  /** Also list values retracted (delete-by-source) by knownAt; they are part of the audit trail. */
  includeRetracted?: boolean;
}

export interface FactsAsOfQuery extends Omit<FactHistoryQuery, "includeRetracted"> {
  /** Valid time; omitted = now. */
  validAt?: Date;
}

export interface FactEvidenceView {
  assertion_id: string;
  quote: string;
  start_byte: number;
  end_byte: number;
  turn_id: string | null;
  document_id: string | null;
  fact_write_id: string | null;
  stage: string;
  model: string | null;
  event_time: Date | null;
}

/** One value of one fact, with its validity as known at the query's system time. */
export interface HistoricFact extends Omit<FactCommon, "assertion_id"> {
  kind: "attribute" | "relation";
  entity_id: string;
  key: string;
  /** The attribute's value, or the relation's object entity name. */
  value: string;
  object_entity_id: string | null;
  /** True in the world at validAt (default now), as known at knownAt, and not retracted. */
  current: boolean;
  /** Open cross-source conflicts this value is one side of (it is current, but contested). */
  open_uncertainty_ids: string[];
  evidence: FactEvidenceView | null;
}

/** Every value the entity's facts have had, oldest first per key: the history of each fact. */
export async function readFactHistory(db: Db, query: FactHistoryQuery): Promise<HistoricFact[]> {
  const knownAt = query.knownAt ?? new Date();
  const rows = await loadRows(db, query, knownAt);
  const visible = rows.filter((r) => query.includeRetracted || !retractedBy(r.fact, knownAt));
  return (await toViews(db, visible, knownAt, new Date())).sort(byKeyThenValidity);
}

/** The entity's facts true at validAt, as the store knew them at knownAt. */
export async function readFactsAsOf(db: Db, query: FactsAsOfQuery): Promise<HistoricFact[]> {
  const knownAt = query.knownAt ?? new Date();
  const validAt = query.validAt ?? new Date();
  const rows = (await loadRows(db, query, knownAt)).filter((r) => !retractedBy(r.fact, knownAt));
  const views = await toViews(db, rows, knownAt, validAt);
  return views.filter((v) => v.current).sort(byKeyThenValidity);
}

interface Row {
  kind: "attribute" | "relation";
  fact: Attribute | Relation;
  key: string;
}

async function loadRows(db: Db, query: FactHistoryQuery, knownAt: Date): Promise<Row[]> {
  const common = { contextId: query.contextId, recordedAt: { lte: knownAt } };
  const [attributes, relations] = await Promise.all([
    db.attribute.findMany({ where: { ...common, entityId: query.entityId, ...(query.key ? { key: query.key } : {}) } }),
    db.relation.findMany({ where: { ...common, subjectId: query.entityId, ...(query.key ? { predicate: query.key } : {}) } }),
  ]);
  const rows: Row[] = [
    ...attributes.map((fact) => ({ kind: "attribute" as const, fact, key: fact.key })),
    ...relations.map((fact) => ({ kind: "relation" as const, fact, key: fact.predicate })),
  ];
  return query.scope ? rows.filter((r) => scopeVisible(r.fact.scope, query.scope!)) : rows;
}

function retractedBy(fact: { retractedAt: Date | null }, at: Date): boolean {
  return fact.retractedAt !== null && fact.retractedAt <= at;
}

async function toViews(db: Db, rows: readonly Row[], knownAt: Date, validAt: Date): Promise<HistoricFact[]> {
  const ids = rows.map((r) => r.fact.id);
  const [closures, assertions, objects, conflicts] = await Promise.all([
    loadClosures(db, ids),
    db.assertion.findMany({ where: { id: { in: rows.map((r) => r.fact.assertionId) } } }),
    objectNames(db, rows),
    openConflicts(db, ids, knownAt),
  ]);
  return rows.map((r) => {
    const closure = closureAt(r.fact, closures.get(r.fact.id) ?? [], knownAt);
    const assertion = assertions.find((a) => a.id === r.fact.assertionId);
    return view(r, closure, assertion, objects, conflicts, { knownAt, validAt });
  });
}

function view(
  r: Row,
  closure: Closure,
  assertion: Assertion | undefined,
  objects: ReadonlyMap<string, string>,
  conflicts: ReadonlyMap<string, string[]>,
  at: { knownAt: Date; validAt: Date },
): HistoricFact {
  const f = r.fact;
  const objectId = r.kind === "relation" ? (f as Relation).objectId : null;
  const retractedAt = f.retractedAt && f.retractedAt <= at.knownAt ? f.retractedAt : null;
  const validNow = f.validFrom <= at.validAt && (closure.validTo === null || closure.validTo > at.validAt);
  return {
    kind: r.kind,
    id: f.id,
    entity_id: r.kind === "attribute" ? (f as Attribute).entityId : (f as Relation).subjectId,
    key: r.key,
    value: objectId ? (objects.get(objectId) ?? objectId) : (f as Attribute).value,
    object_entity_id: objectId,
    memory_category: f.memoryCategory,
    confidence: f.confidence,
    scope: f.scope,
    valid_from: f.validFrom,
    valid_to: closure.validTo,
    superseded_by: closure.supersededBy,
    recorded_at: f.recordedAt,
    retracted_at: retractedAt,
    current: validNow && retractedAt === null,
    open_uncertainty_ids: conflicts.get(f.id) ?? [],
    evidence: assertion ? evidenceView(assertion) : null,
  };
}

function evidenceView(a: Assertion): FactEvidenceView {
  return {
    assertion_id: a.id,
    quote: a.quote,
    start_byte: a.startByte,
    end_byte: a.endByte,
    turn_id: a.turnId,
    document_id: a.documentId,
    fact_write_id: a.factWriteId,
    stage: a.stage,
    model: a.model,
    event_time: a.eventTime,
  };
}

async function objectNames(db: Db, rows: readonly Row[]): Promise<Map<string, string>> {
  const ids = rows.flatMap((r) => (r.kind === "relation" ? [(r.fact as Relation).objectId] : []));
  const entities = ids.length > 0 ? await db.entity.findMany({ where: { id: { in: ids } }, select: { id: true, name: true } }) : [];
  return new Map(entities.map((e) => [e.id, e.name]));
}

/** Fact id → the cross-source conflicts open at knownAt that list it. */
async function openConflicts(db: Db, factIds: readonly string[], knownAt: Date): Promise<Map<string, string[]>> {
  if (factIds.length === 0) return new Map();
  const rows = await db.uncertainty.findMany({ where: { factIds: { hasSome: [...factIds] }, createdAt: { lte: knownAt } } });
  const open = rows.filter((u) => !(u.resolvedAt && u.resolvedAt <= knownAt) && !(u.retractedAt && u.retractedAt <= knownAt));
  const byFact = new Map<string, string[]>();
  for (const u of open) for (const id of u.factIds) byFact.set(id, [...(byFact.get(id) ?? []), u.id]);
  return byFact;
}

function byKeyThenValidity(a: HistoricFact, b: HistoricFact): number {
  return a.key.localeCompare(b.key) || a.valid_from.getTime() - b.valid_from.getTime() || a.recorded_at.getTime() - b.recorded_at.getTime();
}
