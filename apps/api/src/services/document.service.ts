// Document ingest: the document, its source and its first work item in one transaction,
// then queued. Accepted means kept, whether or not Redis answered.
import { createHash } from "node:crypto";
import { toJson, transaction, type Tx } from "@recall/db";
import { chunkText } from "@recall/extraction";
import { normaliseScope } from "@recall/memory";
import { ensureWorkItem } from "@recall/queues";
import { currentTraceId } from "@recall/telemetry";
import type { CreateDocumentBody } from "../routes/documents.schemas";
import { newTraceId } from "../http/trace";
import { enqueueOrLeaveForSweeper } from "./enqueue";
import type { ServiceDeps } from "./service-deps";

type SourceInput = NonNullable<CreateDocumentBody["source"]>;

export class DocumentService {
  constructor(private readonly deps: ServiceDeps) {}

  async ingest(contextId: string, input: CreateDocumentBody) {
    const { document, workItem } = await this.store(contextId, input);
    const queued = await enqueueOrLeaveForSweeper(this.deps, workItem);
    return { document, queued };
  }

  /** Stores the document, its nodes and its first work item in one transaction. */
  private store(contextId: string, input: CreateDocumentBody) {
    const traceId = currentTraceId() ?? newTraceId();
    return transaction(this.deps.db, async (tx) => {
      const sourceId = input.source ? await upsertSource(tx, contextId, input.source) : undefined;
      const document = await tx.document.create({
        data: {
          contextId,
          sourceId,
          text: input.text,
          metadata: toJson(metadataOf(input)),
          contentHash: createHash("sha256").update(input.text).digest("hex"),
          traceId,
          nodes: {
            create: chunkText(input.text).map((c) => ({ ordinal: c.ordinal, text: c.text, startByte: c.start_byte, endByte: c.end_byte })),
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
}

/** The document's scope lives in metadata.scope, where the worker reads it; the top-level field is the documented way to set it. */
function metadataOf(input: CreateDocumentBody): Record<string, unknown> {
  const metadata: Record<string, unknown> = { ...(input.metadata ?? {}) };
  const scope = input.scope ?? input.metadata?.scope;
  if (scope) metadata.scope = normaliseScope(scope);
  return metadata;
}

/** A source with an external id is one row per (type, id): later versions attach to it. */
async function upsertSource(tx: Tx, contextId: string, source: SourceInput): Promise<string> {
  const data = { contextId, type: source.type, name: source.name, externalId: source.external_id, metadata: toJson(source.metadata ?? {}) };
  if (!source.external_id) return (await tx.source.create({ data })).id;
  const row = await tx.source.upsert({
    where: { contextId_type_externalId: { contextId, type: source.type, externalId: source.external_id } },
    create: data,
    update: { name: source.name, metadata: data.metadata },
  });
  return row.id;
}
