// POST /facts: direct writes through the same validation, commit and truth maintenance
// as extracted facts. GET /facts/{id}/provenance: from any fact back to its source bytes.
import { z } from "zod";
import type { Assertion } from "@recall/db";
import { readProvenance, type WriteFactsResult } from "@recall/memory";
import type { ApiDeps } from "../deps";
import { AppError, notFound } from "../http/errors";
import { defineRoute, type RouteDefinition } from "../http/route-definition";
import { ScopeQuery } from "../http/scope-schema";
import { FactWriteService } from "../services/fact-write.service";
import { workItemView } from "../views/work-item-view";
import { FactWriteBody, FactWriteResult } from "./fact-write.schemas";
import { Provenance } from "./memory.schemas";

const FactParams = z.object({ contextId: z.string(), factId: z.uuid("must be a fact id") });

export function factRoutes(deps: ApiDeps): RouteDefinition[] {
  const writes = new FactWriteService(deps, { embeddings: deps.config.RECALL_EMBEDDING_MODEL !== undefined });
  return [writeFactsRoute(writes), provenanceRoute(deps)];
}

function writeFactsRoute(writes: FactWriteService): RouteDefinition {
  return defineRoute({
    method: "post",
    idempotent: true,
    path: "/facts",
    summary: "Write facts directly; validated, committed and truth-maintained like extracted ones",
    tags: ["memory"],
    params: z.object({ contextId: z.string() }),
    body: FactWriteBody,
    responses: { 201: { description: "Committed", schema: FactWriteResult } },
    handle: async ({ params, body, req }) => {
      // The service applies its own defaults to the raw items (a direct fact is high significance), so it gets them as sent.
      const { scope: _scope, ...diff } = (req.body ?? {}) as Record<string, unknown>;
      const result = await writes.write(params.contextId, body.scope, diff);
      if (!result.ok) throw invalidWrite(result.errors);
      return { status: 201, body: writeView(result) };
    },
  });
}

function provenanceRoute(deps: ApiDeps): RouteDefinition {
  return defineRoute({
    method: "get",
    path: "/facts/:factId/provenance",
    summary: "Where a fact came from: source turn or document node, byte span and quote, stage, model, trace and work items",
    description: "The id may name an attribute, a relation, an assertion or an instruction.",
    tags: ["memory"],
    params: FactParams,
    query: z.object({ scope: ScopeQuery }),
    responses: { 200: { description: "The fact's provenance", schema: Provenance } },
    handle: async ({ params, query }) => {
      const found = await readProvenance(deps.db, { contextId: params.contextId, scope: query.scope }, params.factId);
      if (!found) throw notFound("fact");
      const body = {
        ...found,
        assertion: found.assertion && assertionView(found.assertion),
        work_items: found.work_items.map(workItemView),
      };
      return { status: 200, body };
    },
  });
}

function assertionView(a: Assertion) {
  return {
    id: a.id,
    subject_entity_id: a.subjectEntityId,
    predicate: a.predicate,
    object_entity_id: a.objectEntityId,
    object_literal: a.objectLiteral,
    confidence: a.confidence,
    significance: a.significance,
    memory_category: a.memoryCategory,
    event_time: a.eventTime,
    recorded_at: a.recordedAt,
    retracted_at: a.retractedAt,
  };
}

function invalidWrite(errors: { field: string; message: string }[]): AppError {
  const named = errors.map((e) => ({ field: `body.${e.field}`, message: e.message }));
  return new AppError(400, "invalid_request", named.map((e) => `${e.field}: ${e.message}`).join("; "), named);
}

function writeView(result: Extract<WriteFactsResult, { ok: true }>) {
  const { committed: c, truthMaintenance: tm } = result;
  return {
    fact_write_id: result.factWriteId,
    work_item_id: result.workItemId,
    trace_id: result.traceId,
    committed: {
      entity_ids: c.entityIds,
      assertion_ids: c.assertionIds,
      attribute_ids: c.attributeIds,
      relation_ids: c.relationIds,
      instruction_ids: c.instructionIds,
      uncertainty_ids: c.uncertaintyIds,
    },
    truth_maintenance: {
      superseded: tm.superseded,
      revoked_instruction_ids: tm.revokedInstructionIds,
      conflict_uncertainty_ids: tm.conflictUncertaintyIds,
      resolved_uncertainty_ids: tm.resolvedUncertaintyIds,
    },
  };
}
