// GET /facts/{id}/provenance: from a fact (attribute, relation, assertion or
// instruction) back to the exact bytes it came from — the assertion that evidences
// it, the turn or document node, the span and its quote, which stage and model
// produced it, and the trace id (the work done on the source is the pipeline's to add: provenance-view.ts).
import { Prisma, type Assertion, type DbOrTx } from "@recall/db";
import { turnTextExpr } from "../core/turn-text";
import type { ReaderScope } from "./read-types";
import { visibleTo } from "./sql-fragments";

export type ProvenanceKind = "attribute" | "relation" | "assertion" | "instruction";

/** A turn, a document, or a direct write (POST /facts), whose synthetic text the spans point into. */
export interface SourceRef {
  type: "turn" | "document" | "fact_write";
  id: string;
  /** For a turn: its session and position; for a document: the node holding the span. */
  session_id?: string;
  seq?: number;
  role?: string;
  node?: DocumentNodeRef | null;
  /** For a document: its format, file name, hash of the bytes received, and the version of its source. */
  document?: { format: string; file_name: string | null; content_hash: string; previous_version_id: string | null };
  created_at: Date;
}

/** Where in the document the span lies: the node, its headings ("Architecture › Storage") and its page. */
export interface DocumentNodeRef {
  id: string;
  ordinal: number;
  start_byte: number;
  end_byte: number;
  heading_path: string[];
  section: string | null;
  page: number | null;
}

const HEADING_SEPARATOR = " › ";

export interface Provenance {
  fact: { kind: ProvenanceKind; id: string };
  assertion: Assertion | null;
  extraction: { stage: string; model: string | null; candidate_id: string | null } | null;
  source: SourceRef | null;
  /** `text` is what the source holds at the span: equal to `quote` unless the source changed. */
  span: { start_byte: number; end_byte: number; quote: string; text: string | null } | null;
  trace_id: string | null;
}

interface Located {
  kind: ProvenanceKind;
  id: string;
  assertion_id: string | null;
}

export async function readProvenance(db: DbOrTx, reader: ReaderScope, factId: string): Promise<Provenance | undefined> {
  const located = await locate(db, reader, factId);
  if (!located) return undefined;
  if (located.kind === "instruction") return instructionProvenance(db, reader.contextId, located.id);
  const assertion = await db.assertion.findFirst({ where: { id: located.assertion_id ?? "", contextId: reader.contextId } });
  if (!assertion) return undefined;
  const source = await sourceOf(db, reader.contextId, assertion);
  const span = await spanOf(db, source, assertion.startByte, assertion.endByte, assertion.quote);
  return {
    fact: { kind: located.kind, id: located.id },
    assertion,
    extraction: { stage: assertion.stage, model: assertion.model, candidate_id: assertion.candidateId },
    source,
    span,
    trace_id: assertion.traceId,
  };
}

/** Finds which kind of fact the id names, only within the context and only if the reader may see it. */
async function locate(db: DbOrTx, reader: ReaderScope, id: string): Promise<Located | undefined> {
  const one = (kind: ProvenanceKind, table: string, assertion: string) => Prisma.sql`
    SELECT ${kind}::text AS kind, f.id, ${Prisma.raw(assertion)} AS assertion_id FROM ${Prisma.raw(table)} f
    WHERE f.id = ${id}::uuid AND f.context_id = ${reader.contextId}::uuid AND ${visibleTo("f", reader.scope)}`;
  const rows = await db.$queryRaw<Located[]>(Prisma.sql`
    ${one("attribute", "attributes", "f.assertion_id")} UNION ALL ${one("relation", "relations", "f.assertion_id")}
    UNION ALL ${one("assertion", "assertions", "f.id")} UNION ALL ${one("instruction", "instructions", "NULL::uuid")}`);
  return rows[0];
}

async function instructionProvenance(db: DbOrTx, contextId: string, id: string): Promise<Provenance> {
  const instruction = await db.instruction.findFirstOrThrow({ where: { id, contextId } });
  const candidate = instruction.candidateId
    ? await db.knowledgeCandidate.findFirst({ where: { id: instruction.candidateId, contextId } })
    : null;
  const source = await sourceOf(db, contextId, instruction);
  const { startByte, endByte } = instruction;
  const span = startByte !== null && endByte !== null ? await spanOf(db, source, startByte, endByte, instruction.quote ?? "") : null;
  const traceId = source ? ((await traceOf(db, contextId, source)) ?? null) : null;
  return {
    fact: { kind: "instruction", id },
    assertion: null,
    extraction: candidate ? { stage: candidate.stage, model: candidate.model, candidate_id: candidate.id } : null,
    source,
    span,
    trace_id: traceId,
  };
}

async function sourceOf(
  db: DbOrTx,
  contextId: string,
  ref: { turnId: string | null; documentId: string | null; documentNodeId?: string | null; factWriteId: string | null },
): Promise<SourceRef | null> {
  if (ref.factWriteId) {
    const write = await db.factWrite.findFirst({ where: { id: ref.factWriteId, contextId }, select: { id: true, createdAt: true } });
    return write && { type: "fact_write", id: write.id, created_at: write.createdAt };
  }
  if (ref.turnId) {
    const turn = await db.turn.findFirst({ where: { id: ref.turnId, contextId } });
    return turn && { type: "turn", id: turn.id, session_id: turn.sessionId, seq: turn.seq, role: turn.role, created_at: turn.createdAt };
  }
  if (!ref.documentId) return null;
  const document = await db.document.findFirst({
    where: { id: ref.documentId, contextId },
    select: { id: true, createdAt: true, format: true, fileName: true, contentHash: true, previousVersionId: true },
  });
  if (!document) return null;
  const node = ref.documentNodeId ? await db.documentNode.findFirst({ where: { id: ref.documentNodeId, documentId: document.id } }) : null;
  const nodeView = node && {
    id: node.id,
    ordinal: node.ordinal,
    start_byte: node.startByte,
    end_byte: node.endByte,
    heading_path: node.headingPath,
    section: node.headingPath.length > 0 ? node.headingPath.join(HEADING_SEPARATOR) : null,
    page: node.page,
  };
  const about = {
    format: document.format,
    file_name: document.fileName,
    content_hash: document.contentHash,
    previous_version_id: document.previousVersionId,
  };
  return { type: "document", id: document.id, node: nodeView, document: about, created_at: document.createdAt };
}

/**
 * Cuts the span's bytes out of the stored source in SQL, so a 5 MiB document is not
 * shipped to read 40 bytes; decoded here, leniently, in case a span splits a character.
 */
async function spanOf(db: DbOrTx, source: SourceRef | null, start: number, end: number, quote: string): Promise<Provenance["span"]> {
  const span = { start_byte: start, end_byte: end, quote, text: null as string | null };
  if (!source || start < 0 || end <= start) return span;
  const src = Prisma.sql`(SELECT ${Prisma.raw(SOURCE_TEXT[source.type])} WHERE id = ${source.id}::uuid)`;
  const rows = await db.$queryRaw<{ bytes: Uint8Array | null; size: number }[]>(Prisma.sql`
    SELECT substring(b FROM ${start + 1} FOR ${end - start}) AS bytes, octet_length(b)::int AS size
    FROM (SELECT convert_to(${src}, 'UTF8') AS b) s`);
  const row = rows[0];
  if (row?.bytes && end <= row.size) span.text = Buffer.from(row.bytes).toString("utf8");
  return span;
}

const SOURCE_TEXT: Record<SourceRef["type"], string> = {
  turn: `${turnTextExpr()} FROM turns`,
  document: "text FROM documents",
  fact_write: "text FROM fact_writes",
};

async function traceOf(db: DbOrTx, contextId: string, source: SourceRef): Promise<string | undefined> {
  const where = { id: source.id, contextId };
  if (source.type === "turn") return (await db.turn.findFirst({ where, select: { traceId: true } }))?.traceId;
  if (source.type === "fact_write") return (await db.factWrite.findFirst({ where, select: { traceId: true } }))?.traceId;
  return (await db.document.findFirst({ where, select: { traceId: true } }))?.traceId;
}
