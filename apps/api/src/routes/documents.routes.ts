import { createHash } from "node:crypto";
import { Router } from "express";
import { z } from "zod";
import { transaction, type Db, type Prisma } from "@recall/db";
import { chunkText } from "@recall/extraction";
import { ensureWorkItem } from "@recall/queues";
import { currentTraceId } from "@recall/telemetry";
import type { ApiDeps } from "../deps";
import { notFound } from "../errors";
import { enqueueOrLeaveForSweeper, documentStatus } from "../pipeline-status";
import { contextIdOf, parseBody, parseParams } from "../validate";
import { newTraceId } from "../trace";

const MAX_DOCUMENT_BYTES = 5 * 1024 * 1024;

export const CreateDocumentBody = z.object({
  text: z
    .string()
    .min(1, "must not be empty")
    .refine((t) => Buffer.byteLength(t) <= MAX_DOCUMENT_BYTES, "must be at most 5 MiB"),
  metadata: z.record(z.string(), z.unknown()).optional(),
  source: z
    .object({
      type: z.string().trim().min(1).max(100),
      name: z.string().max(500).optional(),
      external_id: z.string().max(500).optional(),
      metadata: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
});
type CreateDocumentBody = z.infer<typeof CreateDocumentBody>;

const DocumentParams = z.object({ contextId: z.string(), documentId: z.string().uuid("must be a document id") });

export function documentRoutes(deps: ApiDeps): Router {
  const router = Router({ mergeParams: true });
  router.post("/documents", async (req, res) => {
    const body = parseBody(CreateDocumentBody, req.body);
    const contextId = contextIdOf(req);
    const { document, workItem } = await storeDocument(deps.db, contextId, body);
    const queued = await enqueueOrLeaveForSweeper(deps, workItem);
    res.status(202).json({ document_id: document.id, trace_id: document.traceId, queued });
  });
  router.get("/documents/:documentId/status", async (req, res) => {
    const { documentId } = parseParams(DocumentParams, req.params);
    const status = await documentStatus(deps.db, contextIdOf(req), documentId);
    if (!status) throw notFound("document");
    res.json(status);
  });
  return router;
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
        metadata: (body.metadata ?? {}) as Prisma.InputJsonValue,
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
