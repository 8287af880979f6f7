// Delete by source: everything derived from one document, turn or direct write is
// retracted (never deleted) and an audit record says what and why. The raw text stays.
import { z } from "zod";
import { DECISION_TEXT_CHARS } from "@recall/contracts";
import type { ApiDeps } from "../deps";
import { defineRoute, type RouteDefinition } from "../http/route-definition";
import { RetractionService, type RetractableSource } from "../services/retraction.service";
import { EXAMPLES } from "./openapi-examples";
import { RetractionView, retractionView } from "./retractions.schemas";

const RetractBody = z.object({ reason: z.string().trim().min(1, "say why").max(DECISION_TEXT_CHARS) });

const SOURCES: [RetractableSource, "documentId" | "turnId" | "factWriteId", string, string][] = [
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
        return { status: 200, body: retractionView(sourceType, sourceId, report) };
      },
    }),
  );
}
