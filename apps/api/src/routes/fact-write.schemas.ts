// POST /facts: a direct write. Items use the extraction diff's own candidate schemas
// (the ones validate_artifacts checks), with what a direct write may leave out:
// evidence (the service writes a synthetic statement for it), confidence and significance.
import { z } from "zod";
import {
  AttributeCandidate,
  EntityCandidate,
  cappedText,
  InstructionCandidate,
  MemoryCategory,
  RelationCandidate,
  Significance,
  UncertaintyCandidate,
} from "@recall/contracts";
import { ScopeBody } from "../http/scope-schema";

const DirectEvidence = z
  .strictObject({
    quote: cappedText("quote").min(1),
    // Accepted as extraction's evidence has them; a direct write's statement is its own text, so they are not used.
    start_byte: z.number().int().min(0).optional().describe("ignored"),
    end_byte: z.number().int().min(0).optional().describe("ignored"),
  })
  .describe("the caller's own wording of the fact; the fact spelled out when absent");

const Scored = {
  evidence: DirectEvidence.optional(),
  confidence: z.number().min(0).max(1).optional().describe("default 1"),
  significance: Significance.optional().describe("default high"),
};

// Every item is a strict object: a misspelt field (`valid_form`) is a 400 naming it, never dropped in silence.
// (The contracts' schemas stay open: a model's output may carry keys the pipeline ignores.)
export const FactWriteBody = z.strictObject({
  scope: ScopeBody,
  entities: z.array(EntityCandidate.extend({ evidence: DirectEvidence.optional() }).strict()).optional(),
  attributes: z.array(AttributeCandidate.extend(Scored).strict()).optional(),
  relations: z.array(RelationCandidate.extend(Scored).strict()).optional(),
  instructions: z
    .array(InstructionCandidate.extend({ memory_category: MemoryCategory.optional(), evidence: DirectEvidence.optional() }).strict())
    .optional(),
  uncertainties: z.array(UncertaintyCandidate.extend({ memory_category: MemoryCategory.optional() }).strict()).optional(),
});

export const FactWriteResult = z.object({
  fact_write_id: z.uuid().describe("the source of these facts; provenance points into its statements"),
  work_item_id: z.uuid(),
  trace_id: z.string(),
  committed: z.object({
    entity_ids: z.array(z.uuid()),
    assertion_ids: z.array(z.uuid()),
    attribute_ids: z.array(z.uuid()),
    relation_ids: z.array(z.uuid()),
    instruction_ids: z.array(z.uuid()),
    uncertainty_ids: z.array(z.uuid()),
  }),
  truth_maintenance: z.object({
    status: z
      .enum(["applied", "pending"])
      .describe("pending: it failed in the request and a worker applies it (the lists below are then empty)"),
    superseded: z.array(z.uuid()).describe("facts this write closed"),
    revoked_instruction_ids: z.array(z.uuid()),
    conflict_uncertainty_ids: z.array(z.uuid()),
    resolved_uncertainty_ids: z.array(z.uuid()),
  }),
});

export const FactWriteAccepted = z.object({
  fact_write_id: z.uuid(),
  work_item_id: z.uuid().describe("the commit, left to a worker"),
  trace_id: z.string(),
  status: z.literal("pending"),
  status_url: z.string().describe("the commit's work item"),
});
