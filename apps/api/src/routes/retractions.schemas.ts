// Response shape of the retraction routes (and MCP's forget tool).
import { z } from "zod";
import type { RetractionReport } from "@recall/memory";
import type { RetractableSource } from "../services/retraction.service";

export const RetractionView = z.object({
  retraction_id: z.string().nullable(),
  pending: z
    .boolean()
    .describe(
      "the source's extraction had not committed yet: the retraction is recorded and its commit will write nothing (the counts are what was committed so far)",
    ),
  source_type: z.enum(["document", "turn", "fact_write"]),
  source_id: z.string(),
  retracted: z.object({
    assertions: z.number(),
    attributes: z.number(),
    relations: z.number(),
    instructions: z.number(),
    uncertainties: z.number(),
    entities: z.number(),
  }),
  reopened: z.object({ facts: z.number(), instructions: z.number(), uncertainties: z.number() }),
});

export function retractionView(sourceType: RetractableSource, sourceId: string, r: RetractionReport): z.infer<typeof RetractionView> {
  return {
    retraction_id: r.retractionId,
    pending: r.pending,
    source_type: sourceType,
    source_id: sourceId,
    retracted: {
      assertions: r.assertionIds.length,
      attributes: r.attributeIds.length,
      relations: r.relationIds.length,
      instructions: r.instructionIds.length,
      uncertainties: r.uncertaintyIds.length,
      entities: r.entityIds.length,
    },
    reopened: {
      facts: r.reopenedFactIds.length,
      instructions: r.reactivatedInstructionIds.length,
      uncertainties: r.reopenedUncertaintyIds.length,
    },
  };
}
