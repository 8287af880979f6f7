// Versions of one source: a document posted with the source id of an earlier one replaces
// it. Once the new version has been committed and truth-maintained, the old one is
// retracted through delete-by-source, so facts only it supported end and facts the new
// version states again live on in the new version's rows. Retracting is idempotent, so a
// retried stage does it once.
import type { Db, DbOrTx } from "@recall/db";
import { sourceCommitted } from "../write/commit-records";
import { retractSource, type RetractionReport } from "./retraction";

export async function retirePreviousVersion(
  db: Db,
  input: { contextId: string; documentId: string; singleValued?: ReadonlySet<string> },
): Promise<RetractionReport | undefined> {
  const doc = await db.document.findFirst({
    where: { id: input.documentId, contextId: input.contextId },
    select: { previousVersionId: true },
  });
  if (!doc?.previousVersionId) return undefined;
  const previous = { contextId: input.contextId, sourceType: "document" as const, sourceId: doc.previousVersionId };
  const reason = `superseded by version ${input.documentId} of the same source`;
  await stopUncommitted(db, previous, reason);
  return retractSource(db, { ...previous, reason, singleValued: input.singleValued });
}

/**
 * An old version still in its pipeline would commit after this retraction and leave its
 * facts live. A retraction row written first makes its commit write nothing (commit.ts).
 */
async function stopUncommitted(db: Db, previous: { contextId: string; sourceType: "document"; sourceId: string }, reason: string) {
  // The commit record is written in the commit's own transaction: it is there exactly when the commit went through.
  if (await sourceCommitted(db, previous.contextId, previous.sourceId)) return;
  if (await db.retraction.findFirst({ where: previous, select: { id: true } })) return;
  await db.retraction.create({ data: { ...previous, reason, summary: { uncommitted: true } } });
}

export interface DocumentVersion {
  document_id: string;
  version: number;
  format: string;
  file_name: string | null;
  content_hash: string;
  byte_size: number | null;
  created_at: Date;
  previous_version_id: string | null;
  superseded_by: string | null;
  retraction_id: string | null;
  current: boolean;
}

export interface DocumentVersions {
  document_id: string;
  source: { id: string; type: string; name: string | null; external_id: string | null } | null;
  versions: DocumentVersion[];
}

/** Every version of the document's source, oldest first; a document without a source id is its only version. */
export async function readDocumentVersions(db: DbOrTx, contextId: string, documentId: string): Promise<DocumentVersions | undefined> {
  const doc = await db.document.findFirst({ where: { id: documentId, contextId }, include: { source: true } });
  if (!doc) return undefined;
  const versioned = doc.source?.externalId ? { sourceId: doc.source.id, contextId } : { id: doc.id, contextId };
  const rows = await db.document.findMany({ where: versioned, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
  const retractions = await db.retraction.findMany({
    where: { contextId, sourceType: "document", sourceId: { in: rows.map((r) => r.id) } },
    orderBy: { createdAt: "asc" },
  });
  const successor = new Map(rows.filter((r) => r.previousVersionId).map((r) => [r.previousVersionId!, r.id]));
  const retraction = new Map(retractions.map((r) => [r.sourceId, r.id]));
  const versions = rows.map((row, i) => ({
    document_id: row.id,
    version: i + 1,
    format: row.format,
    file_name: row.fileName,
    content_hash: row.contentHash,
    byte_size: row.byteSize,
    created_at: row.createdAt,
    previous_version_id: row.previousVersionId,
    superseded_by: successor.get(row.id) ?? null,
    retraction_id: retraction.get(row.id) ?? null,
    current: !successor.has(row.id) && !retraction.has(row.id),
  }));
  const source = doc.source && { id: doc.source.id, type: doc.source.type, name: doc.source.name, external_id: doc.source.externalId };
  return { document_id: doc.id, source, versions };
}
