import { createHash } from "node:crypto";
import { z } from "zod";
import { transaction, type Db, type Prisma } from "@recall/db";
import { chunkText } from "@recall/extraction";
import { normaliseScope } from "@recall/memory";
import { ensureWorkItem } from "@recall/queues";
import { currentTraceId } from "@recall/telemetry";
import type { ApiDeps } from "../deps";
import { notFound } from "../errors";
import { enqueueOrLeaveForSweeper, documentStatus } from "../pipeline-status";
import { defineRoute, type RouteDefinition } from "../route-definition";
import { ScopeList } from "../scope-schema";
import { newTraceId } from "../trace";
import { contextIdOf } from "../validate";
import { CreateDocumentBody, DocumentAccepted, DocumentStatus } from "./documents.schemas";

const DocumentParams = z.object({ contextId: z.string(), documentId: z.uuid("must be a document id") });

export function documentRoutes(deps: ApiDeps): RouteDefinition[] {
  return [postDocument(deps), documentStatusRoute(deps)];
}

function postDocument(deps: ApiDeps): RouteDefinition {
  return defineRoute({
    method: "post",
    idempotent: true,
    path: "/documents",
    summary: "Ingest a document; processed asynchronously, stage by stage",
    tags: ["documents"],
    body: CreateDocumentBody,
    responses: { 202: { description: "Stored and queued", schema: DocumentAccepted } },
    handle: async ({ body, req }) => {
      const { document, workItem } = await storeDocument(deps.db, contextIdOf(req), body);
      const queued = await enqueueOrLeaveForSweeper(deps, workItem);
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

/** The document's scope lives in metadata.scope, where the worker reads it; the top-level field is the documented way to set it. */
function metadataOf(body: CreateDocumentBody): Prisma.InputJsonValue {
  const metadata: Record<string, unknown> = { ...(body.metadata ?? {}) };
  const scope = body.scope ?? (body.metadata?.scope as z.infer<typeof ScopeList> | undefined);
  if (scope) metadata.scope = normaliseScope(scope);
  return metadata as Prisma.InputJsonValue;
}

/** Stores the document, its nodes and its first work item in one transaction: accepted means kept. */
async function storeDocument(db: Db, contextId: string, body: CreateDocumentBody) {
  const traceId = currentTraceId() ?? newTraceId();
  return transaction(db, async (tx) => {
    const sourceId = body.source ? await upsertSource(tx, contextId, body.source) : undefined;
    const document = await tx.document.create({
      data: {
        contextId,
        sourceId,
        text: body.text,
        metadata: metadataOf(body),
        contentHash: createHash("sha256").update(body.text).digest("hex"),
        traceId,
        nodes: {
          create: chunkText(body.text).map((c) => ({ ordinal: c.ordinal, text: c.text, startByte: c.start_byte, endByte: c.end_byte })),
        },
      },
    });
    const workItem = await ensureWorkItem(tx, {
      contextId,
      queue: "extract_assertions",
      subjectType: "document",
      subjectId: document.id,
      traceId,
    });
    return { document, workItem };
  });
}

async function upsertSource(
  tx: Prisma.TransactionClient,
  contextId: string,
  source: NonNullable<CreateDocumentBody["source"]>,
): Promise<string> {
  const data = {
    contextId,
    type: source.type,
    name: source.name,
    externalId: source.external_id,
    metadata: (source.metadata ?? {}) as Prisma.InputJsonValue,
  };
  if (!source.external_id) return (await tx.source.create({ data })).id;
  const row = await tx.source.upsert({
    where: { contextId_type_externalId: { contextId, type: source.type, externalId: source.external_id } },
    create: data,
    update: { name: source.name, metadata: data.metadata },
  });
  return row.id;
}
