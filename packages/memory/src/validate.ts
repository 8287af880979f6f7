// validate_artifacts: a candidate becomes memory only if its shape is right, its
// evidence really is in the source text, and its entity types belong to the skill.
import { z } from "zod";
import {
  AttributeCandidate,
  EntityCandidate,
  InstructionCandidate,
  RelationCandidate,
  RevocationCandidate,
  UncertaintyCandidate,
  locateQuote,
  sliceBytes,
  type Evidence,
} from "@recall/extraction";
import type { CandidateKind } from "@recall/db";
import { WILDCARD_TYPE, normaliseType } from "./identity";

const SCHEMAS: Record<CandidateKind, z.ZodType> = {
  entity: EntityCandidate,
  attribute: AttributeCandidate,
  relation: RelationCandidate,
  instruction: InstructionCandidate,
  revocation: RevocationCandidate,
  uncertainty: UncertaintyCandidate,
};

export type Validation = { ok: true; payload: Record<string, unknown> } | { ok: false; errors: string[] };

export interface ValidationScope {
  /** The text the evidence must come from (the turn, or the document node). */
  sourceText: string;
  /** Entity types the skill knows; undefined accepts any. `topic` is always allowed. */
  allowedTypes?: ReadonlySet<string>;
}

export function validateCandidate(kind: CandidateKind, payload: unknown, scope: ValidationScope): Validation {
  const parsed = SCHEMAS[kind].safeParse(payload);
  if (!parsed.success) {
    return { ok: false, errors: parsed.error.issues.map((i) => `${i.path.join(".") || kind}: ${i.message}`) };
  }
  const value = parsed.data as Record<string, unknown>;
  const errors = [...typeErrors(kind, value, scope.allowedTypes)];
  const evidence = value.evidence as Evidence | undefined;
  if (evidence) {
    const located = locateEvidence(evidence, scope.sourceText);
    if (typeof located === "string") errors.push(located);
    else value.evidence = located;
  } else if (kind === "attribute" || kind === "relation") {
    errors.push("evidence: required for attributes and relations");
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, payload: value };
}

/** Fills byte offsets from the quote, or checks given offsets slice back to the quote exactly. */
function locateEvidence(evidence: Evidence, text: string): Evidence | string {
  if (evidence.start_byte !== undefined && evidence.end_byte !== undefined) {
    const slice = sliceBytes(text, { start_byte: evidence.start_byte, end_byte: evidence.end_byte });
    if (slice === evidence.quote) return evidence;
    const found = locateQuote(text, evidence.quote);
    return found ? { ...evidence, ...found } : "evidence.quote: the quoted text is not in the source";
  }
  const found = locateQuote(text, evidence.quote);
  return found ? { ...evidence, ...found } : "evidence.quote: the quoted text is not in the source";
}

function* typeErrors(kind: CandidateKind, value: Record<string, unknown>, allowed?: ReadonlySet<string>): Iterable<string> {
  if (!allowed) return;
  const fields: [string, unknown][] =
    kind === "entity"
      ? [["type", value.type]]
      : kind === "attribute"
        ? [["entity_type", value.entity_type]]
        : kind === "relation"
          ? [
              ["subject_type", value.subject_type],
              ["object_type", value.object_type],
            ]
          : [];
  for (const [field, raw] of fields) {
    if (raw === undefined) continue;
    const type = normaliseType(String(raw));
    if (type !== WILDCARD_TYPE && !allowed.has(type)) yield `${field}: entity type "${String(raw)}" is not known to the skill`;
  }
}
