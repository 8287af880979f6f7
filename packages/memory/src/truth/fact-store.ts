// Attributes (entity → literal) and relations (entity → entity) obey the same truth
// maintenance; this adapter gives both one shape, so the rules are written once.
import { holdLocks, lockKey, type Attribute, type FactKind, type Relation, type Tx } from "@recall/db";
import { scopesOf } from "../core/scope-sets";

export interface Fact {
  kind: FactKind;
  id: string;
  contextId: string;
  /** The entity the fact is about: an attribute's entity, a relation's subject. */
  subjectId: string;
  /** Attribute key or relation predicate. */
  key: string;
  /** Attribute value, or the relation's object entity id. */
  value: string;
  /** The scope's set (core/scope-sets.ts) and its entries: one set id per distinct scope of a context. */
  scopeSetId: bigint | null;
  scope: string[];
  validFrom: Date;
  validTo: Date | null;
  supersededById: string | null;
  recordedAt: Date;
  retractedAt: Date | null;
  assertionId: string;
}

type Unscoped = Omit<Fact, "scope">;

function fromAttribute(a: Attribute): Unscoped {
  return { ...a, kind: "attribute", subjectId: a.entityId };
}

function fromRelation(r: Relation): Unscoped {
  return { ...r, kind: "relation", subjectId: r.subjectId, key: r.predicate, value: r.objectId };
}

/** The facts with their scopes' entries, read in one query. */
async function withScopes(tx: Tx, facts: Unscoped[]): Promise<Fact[]> {
  const entriesOf = await scopesOf(
    tx,
    facts.map((f) => f.scopeSetId),
  );
  return facts.map((f) => ({ ...f, scope: entriesOf(f.scopeSetId) }));
}

export async function loadFacts(tx: Tx, kind: FactKind, ids: readonly string[]): Promise<Fact[]> {
  if (ids.length === 0) return [];
  if (kind === "attribute") return withScopes(tx, (await tx.attribute.findMany({ where: { id: { in: [...ids] } } })).map(fromAttribute));
  return withScopes(tx, (await tx.relation.findMany({ where: { id: { in: [...ids] } } })).map(fromRelation));
}

/** Every live value of the fact's subject and key (the fact among them), in any scope (callers apply the scope rule). */
export async function factGroup(tx: Tx, fact: Fact): Promise<Fact[]> {
  const common = { contextId: fact.contextId, retractedAt: null };
  if (fact.kind === "attribute") {
    return withScopes(
      tx,
      (await tx.attribute.findMany({ where: { ...common, entityId: fact.subjectId, key: fact.key } })).map(fromAttribute),
    );
  }
  return withScopes(
    tx,
    (await tx.relation.findMany({ where: { ...common, subjectId: fact.subjectId, predicate: fact.key } })).map(fromRelation),
  );
}

export async function setClosure(tx: Tx, fact: Fact, validTo: Date | null, supersededById: string | null): Promise<void> {
  if (fact.kind === "attribute") await tx.attribute.update({ where: { id: fact.id }, data: { validTo, supersededById } });
  else await tx.relation.update({ where: { id: fact.id }, data: { validTo, supersededById } });
  fact.validTo = validTo;
  fact.supersededById = supersededById;
}

/** Two values are the same when a reader would call them the same ("CTO" and "cto "). */
export function sameValue(a: Fact, b: Fact): boolean {
  if (a.kind === "relation") return a.value === b.value;
  const norm = (v: string) => v.trim().replace(/\s+/g, " ").toLowerCase();
  return norm(a.value) === norm(b.value);
}

/** Which group a fact belongs to: its kind, subject and key (the unit lockFactGroups serialises). */
export const groupKeyOf = (fact: Fact): string => lockKey("facts", fact.contextId, fact.kind, fact.subjectId, fact.key);

/** The locks that serialise truth maintenance per subject and key, in sorted order so two runs never deadlock. */
export function factGroupLocks(facts: readonly Fact[]): { key: string; mode: "exclusive" }[] {
  return [...new Set(facts.map(groupKeyOf))].sort().map((key) => ({ key, mode: "exclusive" as const }));
}

/** Holds the facts' group locks (factGroupLocks) in one statement. */
export async function lockFactGroups(tx: Tx, facts: readonly Fact[]): Promise<void> {
  const locks = factGroupLocks(facts);
  if (locks.length > 0) await holdLocks(tx, locks);
}
