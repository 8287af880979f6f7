// Turns a parsed statement into diff items: entities, attributes, relations, with
// evidence and validity from time phrases; corrections go through the known-attribute check.
import type { AttributeCandidate, EntityCandidate, MemoryCategory, RelationCandidate } from "@recall/contracts";
import { reconcileCorrection } from "../correction-reconciler";
import { evidenceFor } from "../evidence-builder";
import type { Finding, TurnContext } from "../heuristic-types";
import type { PreparedClause } from "../text/clause-preparer";
import type { Sentence } from "../text/sentence-splitter";
import type { StatementRule } from "./statement-grammar";
import { validityIn } from "../time/temporal-resolver";

export interface StatementFacts {
  /** "speaker" for first-person statements, else the named subject. */
  subject: string;
  introduces?: string;
  role?: string;
  roleKey: "role" | "title";
  org?: string;
  place?: string;
  email?: string;
}

interface Where {
  rule: StatementRule;
  clause: Sentence;
  prepared: PreparedClause;
  context: TurnContext;
}

export function buildStatementFinding(facts: StatementFacts, where: Where): Finding {
  const subject = facts.subject === "speaker" ? (facts.introduces ?? where.context.speaker?.name) : facts.subject;
  const objects = objectEntities(facts, where);
  if (subject === undefined) {
    return { diff: { entities: objects }, confidence: 0.5, rule: where.rule.kind, complete: false, gap: "who 'I' refers to is unknown" };
  }
  const category: MemoryCategory = facts.subject === "speaker" ? "identity" : "knowledge";
  const diff = {
    entities: [personEntity(subject, category, where), ...objects],
    attributes: attributesOf(facts, subject, category, where),
    relations: relationsOf(facts, subject, category, where),
  };
  if (!where.prepared.correction) return { diff, confidence: confidenceOf(where), rule: where.rule.kind, complete: true };
  return reconcileCorrection(diff, subject, where.context.knownAttributes);
}

function confidenceOf(where: Where): number {
  if (where.rule.kind === "third_party") return 0.85;
  return where.rule.aspect === "change" ? 0.85 : 0.9;
}

function personEntity(name: string, category: MemoryCategory, where: Where): EntityCandidate {
  return { name, type: "person", memory_category: category, aliases: [], evidence: locate(name, where), confidence: 0.9 };
}

function objectEntities(facts: StatementFacts, where: Where): EntityCandidate[] {
  const out: EntityCandidate[] = [];
  if (facts.org)
    out.push({
      name: facts.org,
      type: "organization",
      memory_category: "knowledge",
      aliases: [],
      evidence: locate(facts.org, where),
      confidence: 0.85,
    });
  if (facts.place)
    out.push({
      name: facts.place,
      type: "location",
      memory_category: "knowledge",
      aliases: [],
      evidence: locate(facts.place, where),
      confidence: 0.85,
    });
  return out;
}

function attributesOf(facts: StatementFacts, subject: string, category: MemoryCategory, where: Where): AttributeCandidate[] {
  const scored = scoredFields(where);
  const out: AttributeCandidate[] = [];
  if (facts.role)
    out.push({ entity: subject, entity_type: "person", key: facts.roleKey, value: facts.role, memory_category: category, ...scored });
  if (facts.email)
    out.push({ entity: subject, entity_type: "person", key: "email", value: facts.email, memory_category: category, ...scored });
  return out;
}

function relationsOf(facts: StatementFacts, subject: string, category: MemoryCategory, where: Where): RelationCandidate[] {
  const scored = scoredFields(where);
  const out: RelationCandidate[] = [];
  const studies = facts.role !== undefined && /\bstudent$/i.test(facts.role);
  if (facts.org)
    out.push({
      subject,
      subject_type: "person",
      verb: studies ? "studies_at" : "works_at",
      object: facts.org,
      object_type: "organization",
      memory_category: category,
      ...scored,
    });
  if (facts.place)
    out.push({
      subject,
      subject_type: "person",
      verb: "lives_in",
      object: facts.place,
      object_type: "location",
      memory_category: category,
      ...scored,
    });
  return out;
}

function scoredFields(where: Where) {
  const validity = validityIn(where.prepared.phrases, where.rule.aspect);
  const significance = where.rule.kind === "third_party" ? ("medium" as const) : ("high" as const);
  return {
    evidence: evidenceFor(where.context.text, where.clause.start, where.clause.end),
    confidence: confidenceOf(where),
    significance,
    ...validity,
  };
}

function locate(value: string, where: Where) {
  const at = where.context.text.indexOf(value, where.clause.start);
  return at < 0 || at >= where.clause.end ? undefined : evidenceFor(where.context.text, at, at + value.length);
}
