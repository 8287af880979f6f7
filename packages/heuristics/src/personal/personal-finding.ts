// Turns a personal reading into diff items: the speaker, the thing, pet, relative or event
// the statement is about, and one relation (or a plan's literal attribute) with the clause
// as evidence and validity from its time phrases.
import type { AttributeCandidate, EntityCandidate, MemoryCategory, RelationCandidate, Significance } from "@recall/contracts";
import type { PreparedClause } from "../text/clause-preparer";
import { evidenceFor } from "../evidence-builder";
import type { Finding, TurnContext } from "../heuristic-types";
import type { Kinship } from "./kin-reader";
import type { PersonalKind, PersonalRule } from "./personal-grammar";
import type { Thing } from "../text/phrase-reader";
import type { Sentence } from "../text/sentence-splitter";
import { validityIn } from "../time/temporal-resolver";

/** What the personal grammar read in a clause: one object, a plan's words, or a pet or relative. */
export interface PersonalReading {
  object?: Thing;
  /** A literal value, for plans ("take a short trip"). */
  literal?: string;
  kinship?: Kinship;
  /** Relatives named as company ("with my kids"). */
  companions: string[];
}

/** Whom the statement is about: the speaker ("I") or the person addressed ("you"). */
export interface Subject {
  name: string | undefined;
  pronoun: "I" | "you";
  confidence: number;
}

interface Where {
  rule: PersonalRule;
  clause: Sentence;
  prepared: PreparedClause;
  context: TurnContext;
  subject: Subject;
}

interface KindInfo {
  verb: string;
  category: MemoryCategory;
  significance: Significance;
}

const KINDS: Record<PersonalKind, KindInfo> = {
  likes: { verb: "likes", category: "knowledge", significance: "medium" },
  dislikes: { verb: "dislikes", category: "knowledge", significance: "medium" },
  pet: { verb: "owns", category: "identity", significance: "high" },
  kin: { verb: "related_to", category: "identity", significance: "high" },
  outing: { verb: "attended", category: "context", significance: "medium" },
  activity_outing: { verb: "went", category: "context", significance: "medium" },
  plan_attend: { verb: "plans_to_attend", category: "context", significance: "medium" },
  plan: { verb: "plans", category: "context", significance: "medium" },
  hosts: { verb: "hosts", category: "context", significance: "medium" },
  practice_since: { verb: "does", category: "knowledge", significance: "medium" },
  started: { verb: "started", category: "knowledge", significance: "medium" },
  joined: { verb: "member_of", category: "knowledge", significance: "medium" },
  signed_up: { verb: "signed_up_for", category: "context", significance: "medium" },
  researching: { verb: "researching", category: "context", significance: "medium" },
  plays: { verb: "plays", category: "knowledge", significance: "medium" },
  learning: { verb: "learning", category: "knowledge", significance: "medium" },
  reading: { verb: "reading", category: "context", significance: "low" },
  won: { verb: "won", category: "knowledge", significance: "medium" },
  trying: { verb: "trying", category: "context", significance: "low" },
  watched: { verb: "watched", category: "context", significance: "low" },
  job: { verb: "job", category: "identity", significance: "high" },
  moved: { verb: "home", category: "identity", significance: "high" },
  goal: { verb: "goal", category: "knowledge", significance: "medium" },
  had_event: { verb: "had", category: "context", significance: "medium" },
  involved: { verb: "involved_in", category: "knowledge", significance: "medium" },
};

export function buildPersonalFinding(reading: PersonalReading, where: Where): Finding {
  const subject = where.subject.name;
  const rule = where.rule.kind;
  if (subject === undefined)
    return { diff: {}, confidence: 0.5, rule, complete: false, gap: `who '${where.subject.pronoun}' refers to is unknown` };
  const diff = { entities: [person(subject, where)], attributes: [] as AttributeCandidate[], relations: [] as RelationCandidate[] };
  if (reading.kinship) addKinship(diff, subject, reading.kinship, where);
  else if (reading.literal !== undefined) diff.attributes.push(attribute(subject, KINDS[rule].verb, reading.literal, where));
  else if (reading.object) {
    diff.entities.push(entity(reading.object.name, reading.object.type, "knowledge", where));
    diff.relations.push(relation(subject, verbFor(where.rule.kind, reading.object.type), reading.object.name, reading.object.type, where));
  }
  for (const kin of reading.companions) addRelative(diff, subject, kin, where);
  if (where.rule.partial)
    return { diff, confidence: where.subject.confidence, rule, complete: false, gap: "the rest of the clause needs a model" };
  return { diff, confidence: where.subject.confidence, rule, complete: true };
}

/** An outing to a place is a visit; a plan to go to one a plan to visit. */
function verbFor(kind: PersonalKind, objectType: string): string {
  if (kind === "outing" && objectType === "location") return "visited";
  if (kind === "plan_attend" && objectType === "location") return "plans_to_visit";
  return KINDS[kind].verb;
}

type PersonalDiff = { entities: EntityCandidate[]; attributes: AttributeCandidate[]; relations: RelationCandidate[] };

function addKinship(diff: PersonalDiff, subject: string, kin: Kinship, where: Where): void {
  const pet = where.rule.kind === "pet";
  if (kin.name === undefined && pet) {
    diff.attributes.push(attribute(subject, "pet", `${kin.count ?? "a"} ${kin.word}`, where));
    return;
  }
  if (kin.name === undefined) return addRelative(diff, subject, kin.word, where);
  const type = pet ? "pet" : "person";
  diff.entities.push(entity(kin.name, type, "identity", where));
  diff.relations.push(relation(subject, KINDS[where.rule.kind].verb, kin.name, type, where));
  // A kinship is relative to someone: Sam is "brother of Caroline", not just "brother".
  const value = pet ? kin.word : `${kin.word} of ${subject}`;
  diff.attributes.push({ ...attribute(kin.name, pet ? "species" : "kinship", value, where), entity_type: type });
}

/** An unnamed relative is still someone: "Melanie's kids". */
function addRelative(diff: PersonalDiff, subject: string, kin: string, where: Where): void {
  const name = `${subject}'s ${kin}`;
  diff.entities.push({ name, type: "person", memory_category: "identity", aliases: [], confidence: where.subject.confidence });
  // Kinship holds whatever the outing's date: no validity from the clause's time phrase.
  const { valid_from: _from, valid_to: _to, ...timeless } = relation(subject, "related_to", name, "person", where);
  diff.relations.push({ ...timeless, memory_category: "identity" });
}

function relation(subject: string, verb: string, object: string, objectType: string, where: Where): RelationCandidate {
  const info = KINDS[where.rule.kind];
  return { subject, subject_type: "person", verb, object, object_type: objectType, memory_category: info.category, ...scored(where) };
}

function attribute(entity: string, key: string, value: string, where: Where): AttributeCandidate {
  return { entity, entity_type: "person", key, value, memory_category: KINDS[where.rule.kind].category, ...scored(where) };
}

function scored(where: Where) {
  return {
    evidence: evidenceFor(where.context.text, where.clause.start, where.clause.end),
    confidence: where.subject.confidence,
    significance: KINDS[where.rule.kind].significance,
    ...validityIn(where.prepared.phrases, where.rule.aspect),
  };
}

function person(name: string, where: Where): EntityCandidate {
  return { ...entity(name, "person", "identity", where), confidence: 0.9 };
}

function entity(name: string, type: string, category: MemoryCategory, where: Where): EntityCandidate {
  const at = where.context.text.indexOf(name, where.clause.start);
  const evidence = at >= 0 && at + name.length <= where.clause.end ? evidenceFor(where.context.text, at, at + name.length) : undefined;
  return { name, type, memory_category: category, aliases: [], evidence, confidence: where.subject.confidence };
}
