// Document ingest: the document as received, its source and its first work item in one
// transaction, then queued; accepted means kept, whether or not Redis answered. Splitting into nodes happens later, in the extract stage. The same bytes
// posted again to the same context and scope in the same format answer the document already stored; a
// document posted under the source id of an earlier one becomes that source's next version.
import { holdLock, lockKey, toJson, transaction, type Document, type Tx, type WorkItem } from "@recall/db";
import type { DocumentFormat } from "@recall/extraction";
import { holdScopeShared, normaliseScope, sha256, storeOriginal } from "@recall/memory";
import { enqueueOrLeaveForSweeper, ensureWorkItem } from "@recall/pipeline";
import { annotateActiveSpan } from "@recall/telemetry";
import { checkScope, storedConfigOf } from "./scope-rule";
import type { ServiceDeps } from "./service-deps";

export interface SourceInput {
  type: string;
  name?: string;
  external_id?: string;
  metadata?: Record<string, unknown>;
}

export interface DocumentInput {
  bytes: Buffer;
  format: DocumentFormat;
  mediaType: string;
  fileName?: string;
  metadata: Record<string, unknown>;
  scope?: string[];
  source?: SourceInput;
}

export interface IngestResult {
  document: Document;
  /** False for a duplicate (nothing new to queue) or when Redis did not answer (the sweeper queues it). */
  queued: boolean;
  /** The same bytes were already stored in this scope: `document` is that one. */
  duplicate: boolean;
}

/** Formats whose text is the document itself; others keep their original bytes beside the extracted text. */
const SELF_TEXT: ReadonlySet<DocumentFormat> = new Set(["text", "markdown"]);

export class DocumentService {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly options: { blobDir?: string },
  ) {}

  async ingest(contextId: string, input: DocumentInput, traceId: string): Promise<IngestResult> {
    const scope = metadataOf(input).scope as string[] | undefined;
    checkScope(await storedConfigOf(this.deps.db, contextId), scope, "body.scope");
    const { document, workItem } = await this.store(contextId, input, traceId);
    annotateActiveSpan({ "recall.document_id": document.id });
    if (!workItem) return { document, queued: false, duplicate: true };
    return { document, queued: await enqueueOrLeaveForSweeper(this.deps, workItem), duplicate: false };
  }

  private async store(contextId: string, input: DocumentInput, traceId: string): Promise<{ document: Document; workItem?: WorkItem }> {
    const hash = sha256(input.bytes);
    const selfText = SELF_TEXT.has(input.format);
    const stored = selfText ? {} : await storeOriginal(this.options.blobDir, hash, input.bytes);
    const metadata = metadataOf(input);
    const scope = (metadata.scope as string[] | undefined) ?? [];
    return transaction(this.deps.db, async (tx) => {
      // Before any other lock, as an erasure of the scope takes it: the document is stored before it reads, or after.
      await holdScopeShared(tx, contextId, scope);
      await holdLock(tx, lockKey("document", contextId, hash));
      const same = await findSame(tx, contextId, hash, input.format, scope);
      if (same) return { document: same };
      const sourceId = input.source ? await upsertSource(tx, contextId, input.source) : undefined;
      if (sourceId) await holdLock(tx, lockKey("source", sourceId));
      const previous = sourceId && input.source?.external_id ? await latestVersion(tx, contextId, sourceId) : null;
      const document = await tx.document.create({
        data: {
          contextId,
          sourceId,
          text: selfText ? input.bytes.toString("utf8") : "",
          metadata: toJson(metadata),
          contentHash: hash,
          traceId,
          format: input.format,
          mediaType: input.mediaType,
          fileName: input.fileName,
          byteSize: input.bytes.length,
          ...stored,
          previousVersionId: previous?.id,
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
function metadataOf(input: DocumentInput): Record<string, unknown> {
  const metadata: Record<string, unknown> = { ...input.metadata };
  const scope = input.scope ?? (Array.isArray(input.metadata.scope) ? input.metadata.scope.map(String) : undefined);
  if (scope) metadata.scope = normaliseScope(scope);
  return metadata;
}

/**
 * The live document with these bytes in this format and scope: not replaced by a newer version, not retracted. The
 * format is part of what was sent: the same bytes as Markdown and as plain text are split and read differently.
 */
async function findSame(tx: Tx, contextId: string, hash: string, format: DocumentFormat, scope: string[]): Promise<Document | undefined> {
  const candidates = await tx.document.findMany({ where: { contextId, contentHash: hash, format }, orderBy: { createdAt: "desc" } });
  const key = JSON.stringify(normaliseScope(scope));
  for (const doc of candidates) {
    const own = (doc.metadata as { scope?: string[] } | null)?.scope ?? [];
    if (JSON.stringify(normaliseScope(own)) !== key) continue;
    const replaced = await tx.document.count({ where: { previousVersionId: doc.id } });
    const retracted = await tx.retraction.count({ where: { contextId, sourceType: "document", sourceId: doc.id } });
    if (replaced === 0 && retracted === 0) return doc;
  }
  return undefined;
}

/** The context is named too: a source id is never another context's, but a version chain must not cross one either. */
async function latestVersion(tx: Tx, contextId: string, sourceId: string): Promise<Document | null> {
  return tx.document.findFirst({ where: { contextId, sourceId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] });
}

async function upsertSource(tx: Tx, contextId: string, source: SourceInput): Promise<string> {
  const data = {
    contextId,
    type: source.type,
    name: source.name,
    externalId: source.external_id,
    metadata: toJson(source.metadata ?? {}),
  };
  if (!source.external_id) return (await tx.source.create({ data })).id;
  const row = await tx.source.upsert({
    where: { contextId_type_externalId: { contextId, type: source.type, externalId: source.external_id } },
    create: data,
    update: { name: source.name, metadata: data.metadata },
  });
  return row.id;
}
