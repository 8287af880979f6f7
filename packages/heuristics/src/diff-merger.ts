// Combines the findings of one input into a single diff: one entity per name, with
// known entities mentioned in the text added as context for later stages.
import { emptyDiff, type EntityCandidate, type ExtractionDiff } from "@recall/contracts";
import { evidenceFor } from "./evidence-builder";
import type { Finding } from "./heuristic-types";
import type { EntityMention } from "./speakers/known-entity-matcher";

export function mergeFindings(findings: Finding[], mentions: EntityMention[], text: string): ExtractionDiff {
  const diff = emptyDiff();
  for (const { diff: part } of findings) {
    diff.entities.push(...(part.entities ?? []));
    diff.attributes.push(...(part.attributes ?? []));
    diff.relations.push(...(part.relations ?? []));
    diff.instructions.push(...(part.instructions ?? []));
    diff.revocations.push(...(part.revocations ?? []));
    diff.uncertainties.push(...(part.uncertainties ?? []));
  }
  diff.entities.push(...mentions.map((m) => mentionEntity(m, text)));
  diff.entities = uniqueByName(diff.entities);
  return diff;
}

function mentionEntity(mention: EntityMention, text: string): EntityCandidate {
  return {
    name: mention.entity.name,
    type: mention.entity.type,
    memory_category: "context",
    aliases: [],
    evidence: evidenceFor(text, mention.start, mention.end),
    confidence: 0.95,
  };
}

/** The first candidate for a name wins: detectors come before plain mentions. */
function uniqueByName(entities: EntityCandidate[]): EntityCandidate[] {
  const seen = new Set<string>();
  return entities.filter((e) => {
    const key = e.name.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
