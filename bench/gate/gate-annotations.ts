// The rules measured against LoCoMo's annotations (issue 44, part 3). An annotated turn is one
// with at least one observation tied to it by dia_id; coverage is the share of those where the
// rules commit a fact, agreement the share of rule facts that an observation of the same turn
// states. The annotations feed this measurement only, never a rule or a weight.
import type { ExtractionDiff } from "@recall/contracts";
import { contentWords } from "./gate-agreement";

/** One fact the rules commit: an attribute (entity.key = value) or a relation (subject verb object). */
export interface RuleFact {
  entity: string;
  predicate: string;
  value: string;
}

export function ruleFactsOf(diff: ExtractionDiff): RuleFact[] {
  return [
    ...diff.attributes.map((a) => ({ entity: a.entity, predicate: a.key, value: a.value })),
    ...diff.relations.map((r) => ({ entity: r.subject, predicate: r.verb, value: r.object })),
  ];
}

export const showFact = (f: RuleFact): string => `${f.entity} · ${f.predicate.replace(/_/g, " ")} · ${f.value}`;

/**
 * Whether one observation states the fact: the fact's entity is named in it (whole words, any
 * case), and at least one content word of the fact's value or predicate appears in it. Content
 * words are contentWords' (stop-words removed, crude suffix stemming, 3+ letters), with the
 * entity's own name left out so that naming the entity cannot count twice.
 */
export function observationStates(fact: RuleFact, observation: string): boolean {
  if (!namesEntity(observation, fact.entity)) return false;
  const noted = contentWords(observation);
  const words = contentWords(`${fact.predicate.replace(/_/g, " ")} ${fact.value}`, fact.entity.split(/\s+/));
  return [...words].some((w) => noted.has(w));
}

export const agreesWithAnnotations = (fact: RuleFact, observations: string[]): boolean =>
  observations.some((o) => observationStates(fact, o));

function namesEntity(observation: string, entity: string): boolean {
  const name = entity.trim().replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return name.length > 0 && new RegExp(`(?<![\\p{L}\\p{N}])${name}(?![\\p{L}\\p{N}])`, "iu").test(observation);
}
