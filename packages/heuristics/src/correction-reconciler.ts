// Simple corrections ("actually my title is …", "correction: I live in Lisbon now") finish
// without a model only when memory already holds the fact being corrected; the new value
// then uses the key memory uses, so truth maintenance supersedes the old one.
import type { AttributeCandidate, EntityCandidate, KnownAttribute, RelationCandidate } from "@recall/contracts";
import type { Finding } from "./heuristic-types";

const KEY_SYNONYMS: Record<string, string[]> = {
  role: ["role", "title", "job_title", "position"],
  title: ["title", "role", "job_title", "position"],
  works_at: ["works_at", "employer", "company"],
  lives_in: ["lives_in", "location", "city", "home"],
  email: ["email", "email_address"],
};

interface StatementDiff {
  entities: EntityCandidate[];
  attributes: AttributeCandidate[];
  relations: RelationCandidate[];
}

export function reconcileCorrection(diff: StatementDiff, subject: string, knownAttributes: KnownAttribute[]): Finding {
  const known = knownAttributes.filter((a) => a.entity.toLowerCase() === subject.toLowerCase());
  const keyFor = (key: string): KnownAttribute | undefined => known.find((a) => (KEY_SYNONYMS[key] ?? [key]).includes(a.key));
  const corrected = { ...diff, attributes: diff.attributes.map((a) => ({ ...a, key: keyFor(a.key)?.key ?? a.key })) };
  const unknown = [...diff.attributes.map((a) => a.key), ...diff.relations.map((r) => r.verb)].filter((k) => !keyFor(k));
  if (unknown.length === 0) return { diff: corrected, confidence: 0.9, rule: "correction", complete: true };
  const gap = `correction of ${unknown.join(", ")}, which memory does not hold`;
  return { diff: corrected, confidence: 0.6, rule: "correction", complete: false, gap };
}
