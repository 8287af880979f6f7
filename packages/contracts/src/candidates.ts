// Staged knowledge candidates: one schema per kind, so a candidate row's JSON payload
// is read back through its schema instead of a cast.
import { z } from "zod";
import {
  AttributeCandidate,
  EntityCandidate,
  InstructionCandidate,
  RelationCandidate,
  RevocationCandidate,
  UncertaintyCandidate,
} from "./diff";

export const CandidateKind = z.enum(["entity", "attribute", "relation", "instruction", "revocation", "uncertainty"]);
export type CandidateKind = z.infer<typeof CandidateKind>;

export const CANDIDATE_SCHEMAS = {
  entity: EntityCandidate,
  attribute: AttributeCandidate,
  relation: RelationCandidate,
  instruction: InstructionCandidate,
  revocation: RevocationCandidate,
  uncertainty: UncertaintyCandidate,
} as const satisfies Record<CandidateKind, z.ZodType>;

export type CandidatePayload<K extends CandidateKind> = z.infer<(typeof CANDIDATE_SCHEMAS)[K]>;

/**
 * A staged payload of a known kind. Payloads are written by this code after validation, so
 * a parse failure means a corrupted row: it throws rather than letting a malformed fact through.
 * A row stored before the write caps (limits.ts) may be longer than they allow now: it is still
 * read as it is, since refusing it would break every read that meets it, not undo the write.
 */
export function candidatePayload<K extends CandidateKind>(kind: K, payload: unknown): CandidatePayload<K> {
  const parsed = CANDIDATE_SCHEMAS[kind].safeParse(payload);
  if (parsed.success) return parsed.data as CandidatePayload<K>;
  if (parsed.error.issues.every((i) => i.code === "too_big")) return payload as CandidatePayload<K>;
  throw parsed.error;
}

/** One problem with one field of a candidate; `field` is a dotted path inside it ("evidence.quote"). */
export const ValidationIssue = z.object({ field: z.string(), message: z.string() });
export type ValidationIssue = z.infer<typeof ValidationIssue>;
export const ValidationIssues = z.array(ValidationIssue);

/** A staged candidate with its payload read through the schema of its kind, for `switch (c.kind)` narrowing. */
export type TypedCandidate = { [K in CandidateKind]: { kind: K; payload: CandidatePayload<K> } }[CandidateKind];

export function typedCandidate(row: { kind: CandidateKind; payload: unknown }): TypedCandidate {
  return { kind: row.kind, payload: candidatePayload(row.kind, row.payload) } as TypedCandidate;
}
