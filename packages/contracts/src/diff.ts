// The extraction diff: what every extractor stage (heuristic or model) produces,
// what is staged as knowledge candidates, and what callers see on a turn.
// Wire names are snake_case, as in the public API.
import { z } from "zod";
import { AliasList, cappedText } from "./limits";

export const MemoryCategory = z.enum(["identity", "knowledge", "context"]);
export type MemoryCategory = z.infer<typeof MemoryCategory>;

export const Significance = z.enum(["skip", "low", "medium", "high"]);
export type Significance = z.infer<typeof Significance>;

export const Stage = z.enum(["heuristic", "fast", "strong", "direct"]);
export type Stage = z.infer<typeof Stage>;

/** A verbatim quote from the source text. Offsets are UTF-8 byte offsets, filled in by the service, never trusted from a model. */
export const Evidence = z.object({
  quote: cappedText("quote").min(1),
  start_byte: z.number().int().min(0).optional(),
  end_byte: z.number().int().min(0).optional(),
});
export type Evidence = z.infer<typeof Evidence>;

const Scored = {
  evidence: Evidence,
  confidence: z.number().min(0).max(1),
  significance: Significance.default("medium"),
  /** When the fact became true in the world, if the text says (ISO 8601). */
  valid_from: z.string().datetime({ offset: true }).optional(),
  valid_to: z.string().datetime({ offset: true }).optional(),
};

// Every text field is capped (limits.ts): a model or rule that produces a longer one makes an invalid candidate
// whose validation error names the field and the cap, never a stored name of any length.
const name = cappedText("name");
const predicate = cappedText("predicate");
const value = cappedText("value");

export const EntityCandidate = z.object({
  name: name.min(1),
  type: predicate.min(1),
  memory_category: MemoryCategory,
  aliases: AliasList.default([]),
  evidence: Evidence.optional(),
  confidence: z.number().min(0).max(1).default(0.9),
});

export const AttributeCandidate = z.object({
  entity: name.min(1),
  entity_type: predicate.optional(),
  key: predicate.min(1),
  value: value.min(1),
  memory_category: MemoryCategory,
  ...Scored,
});

export const RelationCandidate = z.object({
  subject: name.min(1),
  subject_type: predicate.optional(),
  verb: predicate.min(1),
  object: name.min(1),
  object_type: predicate.optional(),
  memory_category: MemoryCategory,
  ...Scored,
});

export const InstructionCandidate = z.object({
  label: value.min(1),
  description: value.min(1),
  evidence: Evidence.optional(),
  confidence: z.number().min(0).max(1).default(0.9),
});

/** "Stop using bullet points": names the active instruction it deactivates. */
export const RevocationCandidate = z.object({
  instruction_id: z.string().optional(),
  matches: value.min(1),
  evidence: Evidence.optional(),
  confidence: z.number().min(0).max(1).default(0.9),
});

export const UncertaintyCandidate = z.object({
  about: value.min(1),
  reason: value.min(1),
  entity: name.optional(),
  key: predicate.optional(),
});

export const ExtractionDiff = z.object({
  entities: z.array(EntityCandidate).default([]),
  attributes: z.array(AttributeCandidate).default([]),
  relations: z.array(RelationCandidate).default([]),
  instructions: z.array(InstructionCandidate).default([]),
  revocations: z.array(RevocationCandidate).default([]),
  uncertainties: z.array(UncertaintyCandidate).default([]),
});

export type EntityCandidate = z.infer<typeof EntityCandidate>;
export type AttributeCandidate = z.infer<typeof AttributeCandidate>;
export type RelationCandidate = z.infer<typeof RelationCandidate>;
export type InstructionCandidate = z.infer<typeof InstructionCandidate>;
export type RevocationCandidate = z.infer<typeof RevocationCandidate>;
export type UncertaintyCandidate = z.infer<typeof UncertaintyCandidate>;
export type ExtractionDiff = z.infer<typeof ExtractionDiff>;

export function emptyDiff(): ExtractionDiff {
  return { entities: [], attributes: [], relations: [], instructions: [], revocations: [], uncertainties: [] };
}

export function isEmptyDiff(diff: ExtractionDiff): boolean {
  return Object.values(diff).every((items) => items.length === 0);
}

/** What an extractor knows about the context before it reads the text. */
export interface KnownEntity {
  id: string;
  name: string;
  type: string;
  aliases: string[];
}

export interface KnownAttribute {
  entity: string;
  key: string;
  value: string;
}

export interface ActiveInstruction {
  id: string;
  label: string;
  description: string;
}

export interface ExtractionInput {
  /** The text to extract from: a turn's content or a document node's text. */
  text: string;
  kind: "turn" | "document_node";
  /** For turns: the speaker's role (user, assistant). */
  role?: string;
  /** For turns: the speaker's name when the caller gave it (like `name` on a chat message); "I" and "my" refer to them. */
  speaker?: string;
  /** When the text was said or written; temporal phrases resolve against it. */
  referenceTime: Date;
  knownEntities: KnownEntity[];
  knownAttributes: KnownAttribute[];
  activeInstructions: ActiveInstruction[];
}

/** Outcome of the heuristic stage: a diff it is confident in, or a reason the text needs a model. */
export type HeuristicOutcome =
  | { finished: true; diff: ExtractionDiff; confidence: number; reason: string }
  | { finished: false; partial: ExtractionDiff; confidence: number; reason: string };

/** Each list of a diff and the candidate kind its items are staged as. */
export const DIFF_KINDS = [
  ["entities", "entity"],
  ["attributes", "attribute"],
  ["relations", "relation"],
  ["instructions", "instruction"],
  ["revocations", "revocation"],
  ["uncertainties", "uncertainty"],
] as const satisfies readonly (readonly [keyof ExtractionDiff, string])[];
