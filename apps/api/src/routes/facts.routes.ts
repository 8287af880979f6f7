// POST /facts: direct writes through the same validation, commit and truth maintenance
// as extracted facts. GET /facts/{id}/provenance: from any fact back to its source bytes.
import { notFound } from "@recall/contracts";
import { z } from "zod";
import type { ApiDeps } from "../deps";
import { readWhereConsistent } from "../http/consistency";
import { defineRoute, type RouteDefinition } from "../http/route-definition";
import { ScopeQuery } from "../http/scope-schema";
import { FactWriteService, type StoredFactWrite } from "../services/fact-write.service";
import { provenanceView } from "../views/provenance-view";
import { FactWriteAccepted, FactWriteBody, FactWriteResult } from "./fact-write.schemas";
import { Provenance } from "./memory.schemas";
import { EXAMPLES } from "./openapi-examples";

const FactParams = z.object({ contextId: z.string(), factId: z.uuid("must be a fact id") });

export function factRoutes(deps: ApiDeps): RouteDefinition[] {
  return [writeFactsRoute(factWriteService(deps)), provenanceRoute(deps)];
}

/** The direct-write service as POST /facts and MCP write_facts use it: the service's caps from its config. */
export function factWriteService(deps: ApiDeps): FactWriteService {
  return new FactWriteService(deps, {
    embeddings: deps.config.RECALL_EMBEDDING_MODEL !== undefined,
    maxItems: deps.config.RECALL_FACT_WRITE_MAX_ITEMS,
    concurrency: deps.config.RECALL_FACT_WRITE_CONCURRENCY,
  });
}

/** A direct write's answer: committed (201), or stored for a worker to commit (202). */
export function factWriteView(contextId: string, result: StoredFactWrite) {
  return result.outcome === "stored" ? acceptedView(contextId, result) : writeView(result);
}

function writeFactsRoute(writes: FactWriteService): RouteDefinition {
  return defineRoute({
    method: "post",
    idempotent: true,
    path: "/facts",
    summary: "Write facts directly; validated, committed and truth-maintained like extracted ones",
    description:
      "At most RECALL_FACT_WRITE_MAX_ITEMS items (default 100) across all sections; more is a 400 naming the section. All or nothing: " +
      "201 once committed (truth_maintenance.status `pending` if it was left to a worker), 202 if the commit itself was left to a " +
      "worker; never an error once stored, so an Idempotency-Key retry replays the answer instead of writing twice.",
    tags: ["memory"],
    params: z.object({ contextId: z.string() }),
    body: FactWriteBody,
    bodyExample: EXAMPLES.facts.request,
    responses: {
      201: { description: "Committed", schema: FactWriteResult, example: EXAMPLES.facts.response },
      202: { description: "Stored; a worker commits it (its work item says when)", schema: FactWriteAccepted },
    },
    handle: async ({ params, body }) => {
      // The body leaves a direct write's own defaults unset (high significance, confidence 1): the memory package applies them.
      const { scope, ...diff } = body;
      const result = await writes.write(params.contextId, scope, diff);
      if (result.outcome === "stored") return { status: 202, body: acceptedView(params.contextId, result) };
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
    handle: async ({ params, query, req, res }) => {
      const body = await readWhereConsistent(deps, req, res, (db) =>
        provenanceView(db, { contextId: params.contextId, scope: query.scope }, params.factId),
      );
      if (!body) throw notFound("fact");
      return { status: 200, body };
    },
  });
}

function acceptedView(contextId: string, result: Extract<StoredFactWrite, { outcome: "stored" }>) {
  return {
    fact_write_id: result.factWriteId,
    work_item_id: result.workItemId,
    trace_id: result.traceId,
    status: "pending" as const,
    status_url: `/api/v1/${contextId}/work-items/${result.workItemId}`,
  };
}

const NO_TRUTH_MAINTENANCE = { superseded: [], revokedInstructionIds: [], conflictUncertaintyIds: [], resolvedUncertaintyIds: [] };

function writeView(result: Exclude<StoredFactWrite, { outcome: "stored" }>) {
  const { committed: c } = result;
  const tm = result.outcome === "applied" ? result.truthMaintenance : NO_TRUTH_MAINTENANCE;
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
      status: result.outcome === "applied" ? ("applied" as const) : ("pending" as const),
      superseded: tm.superseded,
      revoked_instruction_ids: tm.revokedInstructionIds,
      conflict_uncertainty_ids: tm.conflictUncertaintyIds,
      resolved_uncertainty_ids: tm.resolvedUncertaintyIds,
    },
  };
}
