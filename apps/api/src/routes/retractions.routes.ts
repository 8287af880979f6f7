// Delete by source: everything derived from one document, turn or direct write is
// retracted (never deleted) and an audit record says what and why. The raw text stays.
import { z } from "zod";
import type { RetractionReport } from "@recall/memory";
import type { ApiDeps } from "../deps";
import { defineRoute, type RouteDefinition } from "../http/route-definition";
import { RetractionService, type RetractableSource } from "../services/retraction.service";
import { EXAMPLES } from "./openapi-examples";

type SourceType = RetractableSource;

const RetractBody = z.object({ reason: z.string().trim().min(1, "say why").max(1_000) });

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

const SOURCES: [SourceType, "documentId" | "turnId" | "factWriteId", string, string][] = [
  ["document", "documentId", "/documents/:documentId/retract", "document"],
  ["turn", "turnId", "/turns/:turnId/retract", "turn"],
  ["fact_write", "factWriteId", "/fact-writes/:factWriteId/retract", "direct write"],
];

export function retractionRoutes(deps: ApiDeps): RouteDefinition[] {
  const retractions = new RetractionService(deps);
  return SOURCES.map(([sourceType, param, path, noun]) =>
    defineRoute({
      method: "post",
      idempotent: true,
      path,
      summary: `Retract everything derived from one ${noun} (delete by source), with an audit record`,
      description: `Everything learned from the ${noun} (facts, instructions, uncertainties, and entities nothing else mentions) stops being read at once; values it superseded are current again. Nothing is deleted: the raw text stays and the retraction is recorded with its reason. 404 when the ${noun} is not in this context.`,
      tags: ["facts"],
      params: z.object({ contextId: z.string(), [param]: z.uuid(`must be a ${noun} id`) }),
      body: RetractBody,
      bodyExample: EXAMPLES.retract.request,
      responses: {
        200: {
          description: "What was retracted and reopened",
          schema: RetractionView,
          example: { ...EXAMPLES.retract.response, source_type: sourceType },
        },
      },
      handle: async ({ params, body }) => {
        const { contextId } = params as { contextId: string };
        const sourceId = (params as Record<string, string>)[param]!;
        const report = await retractions.retract(contextId, sourceType, sourceId, body.reason);
        return { status: 200, body: view(sourceType, sourceId, report) };
      },
    }),
  );
}

export function view(sourceType: SourceType, sourceId: string, r: RetractionReport): z.infer<typeof RetractionView> {
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
