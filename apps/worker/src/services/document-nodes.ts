// The extract stage's first step for a document: split it into nodes along its format's
// structure (headings, pages), from its stored text or its original bytes. Done once, in one
// transaction that writes the extracted text and every node; a retry finds them and moves on.
// A document that cannot be read as its format fails for good (class validation).
import { transaction, type Prisma } from "@recall/db";
import { DOCUMENT_FORMATS, type DocumentFormat } from "@recall/extraction";
import { readOriginal } from "@recall/memory";
import { WorkError } from "@recall/pipeline";
import type { WorkerDeps } from "../deps";

/** Parsing runs on the CPU pool's background lane (documents are background work), bounded in time and heap. */
export async function ensureDocumentNodes(deps: WorkerDeps, documentId: string, signal?: AbortSignal): Promise<void> {
  const doc = await deps.db.document.findUnique({ where: { id: documentId }, include: { _count: { select: { nodes: true } } } });
  // Documents split before this stage did it (or by a test harness) already have their nodes.
  if (!doc || doc.parsedAt || doc._count.nodes > 0) return;
  const format = formatOf(doc.format);
  const bytes = await readOriginal(deps.config.RECALL_BLOB_DIR, doc);
  const result = await deps.cpu.run(
    "parse_document",
    { format, text: bytes ? undefined : doc.text, bytes },
    { pdf: { timeoutMs: deps.config.RECALL_PDF_TIMEOUT_MS } },
    { lane: "background", signal },
  );
  if ("unreadable" in result) throw new WorkError("validation", `document ${documentId}: ${result.unreadable}`, false);
  const { parsed } = result;
  await transaction(deps.db, async (tx) => {
    // Concurrent attempts wait here; the second finds the nodes the first wrote.
    await tx.$queryRaw`SELECT id FROM documents WHERE id = ${documentId}::uuid FOR UPDATE`;
    if ((await tx.documentNode.count({ where: { documentId } })) > 0) return;
    await tx.document.update({ where: { id: documentId }, data: { text: parsed.text, parsedAt: new Date() } });
    const nodes: Prisma.DocumentNodeCreateManyInput[] = parsed.nodes.map((n) => ({
      documentId,
      ordinal: n.ordinal,
      text: n.text,
      startByte: n.start_byte,
      endByte: n.end_byte,
      headingPath: n.heading_path,
      page: n.page,
    }));
    if (nodes.length > 0) await tx.documentNode.createMany({ data: nodes });
  });
}

function formatOf(value: string): DocumentFormat {
  if ((DOCUMENT_FORMATS as readonly string[]).includes(value)) return value as DocumentFormat;
  throw new WorkError("validation", `unknown document format "${value}"`, false);
}
