import { z } from "zod";
import type { ApiDeps } from "../deps";
import { notFound } from "../http/errors";
import { documentStatus } from "../views/pipeline-status";
import { defineRoute, type RouteDefinition } from "../http/route-definition";
import { DocumentService } from "../services/document.service";
import { contextIdOf } from "../http/validate";
import { CreateDocumentBody, DocumentAccepted, DocumentStatus } from "./documents.schemas";

const DocumentParams = z.object({ contextId: z.string(), documentId: z.uuid("must be a document id") });

export function documentRoutes(deps: ApiDeps): RouteDefinition[] {
  return [postDocument(new DocumentService(deps)), documentStatusRoute(deps)];
}

function postDocument(documents: DocumentService): RouteDefinition {
  return defineRoute({
    method: "post",
    idempotent: true,
    path: "/documents",
    summary: "Ingest a document; processed asynchronously, stage by stage",
    tags: ["documents"],
    body: CreateDocumentBody,
    responses: { 202: { description: "Stored and queued", schema: DocumentAccepted } },
    handle: async ({ body, req }) => {
      const { document, queued } = await documents.ingest(contextIdOf(req), body);
      return { status: 202, body: { document_id: document.id, trace_id: document.traceId, queued } };
    },
  });
}

function documentStatusRoute(deps: ApiDeps): RouteDefinition {
  return defineRoute({
    method: "get",
    path: "/documents/:documentId/status",
    summary: "A document's pipeline progress, extraction plan and rejected candidates",
    tags: ["documents"],
    params: DocumentParams,
    responses: { 200: { description: "Progress by stage", schema: DocumentStatus } },
    handle: async ({ params }) => {
      const status = await documentStatus(deps.db, params.contextId, params.documentId);
      if (!status) throw notFound("document");
      return { status: 200, body: status };
    },
  });
}
