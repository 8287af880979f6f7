// validate_artifacts: a candidate becomes memory only if its shape is right, its
// evidence really is in the source text, its memory_category is one of the three,
// and its entity types belong to the skill. The same function checks extracted
// candidates and direct writes (POST /facts), so both paths share one rule set.
import { CANDIDATE_SCHEMAS, locateQuote, sliceBytes, type CandidateKind, type Evidence, type ValidationIssue } from "@recall/contracts";
import { NAMELESS_MESSAGE, WILDCARD_TYPE, namesSomething, normaliseType } from "../core/identity";

export type { ValidationIssue };

export type Validation = { ok: true; payload: Record<string, unknown> } | { ok: false; issues: ValidationIssue[] };

export interface ValidationScope {
  /** The text the evidence must come from (the turn, the document node, or a direct write's synthetic text). */
  sourceText: string;
  /** Entity types the skill knows; undefined accepts any. `topic` is always allowed. */
  allowedTypes?: ReadonlySet<string>;
  /**
   * Whether the source may give the reader instructions: a user's own turn or a direct write may;
   * a document or an assistant, system or tool turn may not (its "from now on answer in French" is
   * content someone wrote, not a directive to the reader). Undefined: it may.
   */
  mayInstruct?: boolean;
}

/** Instructions and revocations: the kinds only the scope's own user may give. */
const DIRECTIVE_KINDS: ReadonlySet<CandidateKind> = new Set(["instruction", "revocation"]);

/** Fields that name something and must not be blank once trimmed. */
const NAMED_FIELDS: Partial<Record<CandidateKind, string[]>> = {
  entity: ["name", "type"],
  attribute: ["entity", "key", "value"],
  relation: ["subject", "verb", "object"],
  instruction: ["label", "description"],
  uncertainty: ["about", "reason"],
};

/** Fields that name an entity: each is resolved by its identity key, which a letterless name lacks. */
const ENTITY_NAME_FIELDS: Partial<Record<CandidateKind, string[]>> = {
  entity: ["name"],
  attribute: ["entity"],
  relation: ["subject", "object"],
  uncertainty: ["entity"],
};

export function validateCandidate(kind: CandidateKind, payload: unknown, scope: ValidationScope): Validation {
  const checked = checkShape(kind, payload, scope.allowedTypes);
  if (!checked.parsed) return { ok: false, issues: checked.issues };
  const { value, issues } = checked;
  if (scope.mayInstruct === false && DIRECTIVE_KINDS.has(kind)) {
    issues.push({
      field: kind,
      message: "only a user's own turn or a direct write gives instructions; this source's text is stored as content",
    });
  }
  const evidence = value.evidence as Evidence | undefined;
  if (evidence) {
    const located = locateEvidence(evidence, scope.sourceText);
    if ("field" in located) issues.push(located);
    else value.evidence = located;
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, payload: value };
}

type Shape = { parsed: false; issues: ValidationIssue[] } | { parsed: true; value: Record<string, unknown>; issues: ValidationIssue[] };

/** The schema, blank names, known types and validity order; the evidence is the caller's to check. */
function checkShape(kind: CandidateKind, payload: unknown, allowedTypes?: ReadonlySet<string>): Shape {
  const parsed = CANDIDATE_SCHEMAS[kind].safeParse(payload);
  if (!parsed.success) {
    return { parsed: false, issues: parsed.error.issues.map((i) => ({ field: i.path.join(".") || kind, message: i.message })) };
  }
  const value = normalisePredicates(kind, parsed.data as Record<string, unknown>);
  return {
    parsed: true,
    value,
    issues: [
      ...blankFields(kind, value),
      ...namelessFields(kind, value),
      ...typeIssues(kind, value, allowedTypes),
      ...validityIssues(value),
    ],
  };
}

/**
 * A candidate a reviewer edited (review/review-decisions.ts): the same rules as validateCandidate but the evidence,
 * which an edit does not change (the quote still locates what the source said).
 */
export function validateEdited(kind: CandidateKind, payload: unknown): Validation {
  const checked = checkShape(kind, payload);
  if (!checked.parsed || checked.issues.length > 0) return { ok: false, issues: checked.issues };
  return { ok: true, payload: checked.value };
}

/** "Works at" and "works_at", "Job Title" and "job_title" must meet in truth maintenance, so keys get one spelling. */
export function predicateKey(raw: string): string {
  return raw
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_");
}

function normalisePredicates(kind: CandidateKind, value: Record<string, unknown>): Record<string, unknown> {
  if (kind === "attribute") return { ...value, key: predicateKey(String(value.key)) };
  if (kind === "relation") return { ...value, verb: predicateKey(String(value.verb)) };
  return { ...value };
}

function* blankFields(kind: CandidateKind, value: Record<string, unknown>): Iterable<ValidationIssue> {
  for (const field of NAMED_FIELDS[kind] ?? []) {
    if (typeof value[field] === "string" && (value[field] as string).trim() === "") yield { field, message: "must not be blank" };
  }
}

/** "!!!", "???" or a zero-width space would all resolve to one invisible entity: refused, not merged. */
function* namelessFields(kind: CandidateKind, value: Record<string, unknown>): Iterable<ValidationIssue> {
  for (const field of ENTITY_NAME_FIELDS[kind] ?? []) {
    const name = value[field];
    if (typeof name === "string" && name.trim() !== "" && !namesSomething(name)) yield { field, message: NAMELESS_MESSAGE };
  }
}

function* validityIssues(value: Record<string, unknown>): Iterable<ValidationIssue> {
  const from = typeof value.valid_from === "string" ? Date.parse(value.valid_from) : undefined;
  const to = typeof value.valid_to === "string" ? Date.parse(value.valid_to) : undefined;
  if (from !== undefined && to !== undefined && to <= from) yield { field: "valid_to", message: "must be after valid_from" };
}

/**
 * Fills byte offsets from the quote, or checks given offsets slice back to the quote exactly.
 * Offsets that do not match are not trusted (models guess them); the quote is looked up instead.
 */
function locateEvidence(evidence: Evidence, text: string): Evidence | ValidationIssue {
  if (evidence.start_byte !== undefined && evidence.end_byte !== undefined) {
    const slice = sliceBytes(text, { start_byte: evidence.start_byte, end_byte: evidence.end_byte });
    if (slice === evidence.quote) return evidence;
  }
  const found = locateQuote(text, evidence.quote, evidence.start_byte);
  return found ? { ...evidence, ...found } : { field: "evidence.quote", message: "the quoted text is not in the source" };
}

function typeFields(kind: CandidateKind, value: Record<string, unknown>): [string, unknown][] {
  if (kind === "entity") return [["type", value.type]];
  if (kind === "attribute") return [["entity_type", value.entity_type]];
  if (kind === "relation") {
    return [
      ["subject_type", value.subject_type],
      ["object_type", value.object_type],
    ];
  }
  return [];
}

function* typeIssues(kind: CandidateKind, value: Record<string, unknown>, allowed?: ReadonlySet<string>): Iterable<ValidationIssue> {
  if (!allowed) return;
  for (const [field, raw] of typeFields(kind, value)) {
    if (raw === undefined) continue;
    const type = normaliseType(String(raw));
    if (type !== WILDCARD_TYPE && !allowed.has(type)) {
      yield { field, message: `entity type "${String(raw)}" is not known to the skill (${[...allowed].join(", ")})` };
    }
  }
}
