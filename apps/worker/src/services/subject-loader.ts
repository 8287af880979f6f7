// Loads what a stage needs to know about its subject: a turn, a document, or a direct
// write (POST /facts; only its validate/commit/truth-maintenance stages ever run in a
// worker, when an operator retries one or the sweeper recovers one).
import type { Db } from "@recall/db";
import { WorkError, type StagePayload } from "@recall/queues";

export interface TextUnit {
  /** Document node id; undefined for a turn. */
  nodeId?: string;
  text: string;
  /** Byte offset of this unit inside the whole source text. */
  offset: number;
}

export interface Subject {
  type: "turn" | "document";
  id: string;
  contextId: string;
  units: TextUnit[];
  role?: string;
  speaker?: string;
  occurredAt: Date;
  scope: string[];
  traceId: string;
  turnId?: string;
  documentId?: string;
  metadata: Record<string, unknown>;
  sourceType: string;
  /** A document's format (text, markdown, html, pdf); the skill cascade's source-type map may route by it. */
  format?: string;
  sourceMetadata: Record<string, unknown>;
  contextConfig: Record<string, unknown>;
}

function missing(what: string): WorkError {
  return new WorkError("validation", `${what} does not exist`, false);
}

/** What validation and commit see: any subject, including a direct write. */
export interface StageSubject extends Omit<Subject, "type"> {
  type: Subject["type"] | "fact_write";
  factWriteId?: string;
}

export async function loadStageSubject(db: Db, payload: StagePayload): Promise<StageSubject> {
  if (payload.subjectType !== "fact_write") return loadSubject(db, payload);
  const context = await db.context.findUnique({ where: { id: payload.contextId } });
  return loadFactWrite(db, payload.subjectId, (context?.config ?? {}) as Record<string, unknown>);
}

/** A turn or a document, the subjects that are extracted. */
export async function loadSubject(db: Db, payload: StagePayload): Promise<Subject> {
  if (payload.subjectType === "fact_write") throw new WorkError("validation", "direct writes are not extracted", false);
  const context = await db.context.findUnique({ where: { id: payload.contextId } });
  const contextConfig = (context?.config ?? {}) as Record<string, unknown>;
  return payload.subjectType === "turn"
    ? loadTurn(db, payload.subjectId, contextConfig)
    : loadDocument(db, payload.subjectId, contextConfig);
}

async function loadTurn(db: Db, id: string, contextConfig: Record<string, unknown>): Promise<Subject> {
  const turn = await db.turn.findUnique({ where: { id } });
  if (!turn) throw missing(`turn ${id}`);
  return {
    type: "turn",
    id: turn.id,
    contextId: turn.contextId,
    units: [{ text: turn.content, offset: 0 }],
    role: turn.role,
    speaker: turn.speaker ?? undefined,
    occurredAt: turn.occurredAt ?? turn.createdAt,
    scope: turn.scope,
    traceId: turn.traceId,
    turnId: turn.id,
    metadata: {},
    sourceType: "conversation",
    sourceMetadata: {},
    contextConfig,
  };
}

async function loadDocument(db: Db, id: string, contextConfig: Record<string, unknown>): Promise<Subject> {
  const doc = await db.document.findUnique({ where: { id }, include: { nodes: { orderBy: { ordinal: "asc" } }, source: true } });
  if (!doc) throw missing(`document ${id}`);
  const metadata = (doc.metadata ?? {}) as Record<string, unknown>;
  return {
    type: "document",
    id: doc.id,
    contextId: doc.contextId,
    units: doc.nodes.map((n) => ({ nodeId: n.id, text: n.text, offset: n.startByte })),
    occurredAt: writtenAt(metadata) ?? doc.createdAt,
    scope: Array.isArray(metadata.scope) ? metadata.scope.map(String) : [],
    traceId: doc.traceId,
    documentId: doc.id,
    metadata,
    sourceType: doc.source?.type ?? "document",
    format: doc.format,
    sourceMetadata: (doc.source?.metadata ?? {}) as Record<string, unknown>,
    contextConfig,
  };
}

/**
 * When the document says it was written (metadata.occurred_at or metadata.date, ISO 8601).
 * Facts without an event time are valid from then, and relative phrases resolve against it,
 * so an old report ingested today does not pretend to be news.
 */
function writtenAt(metadata: Record<string, unknown>): Date | undefined {
  for (const field of ["occurred_at", "date"]) {
    const value = metadata[field];
    const time = typeof value === "string" ? Date.parse(value) : NaN;
    if (!Number.isNaN(time)) return new Date(time);
  }
  return undefined;
}

async function loadFactWrite(db: Db, id: string, contextConfig: Record<string, unknown>): Promise<StageSubject> {
  const write = await db.factWrite.findUnique({ where: { id } });
  if (!write) throw missing(`fact write ${id}`);
  return {
    type: "fact_write",
    id: write.id,
    contextId: write.contextId,
    units: [{ text: write.text, offset: 0 }],
    occurredAt: write.createdAt,
    scope: write.scope,
    traceId: write.traceId,
    factWriteId: write.id,
    metadata: {},
    sourceType: "fact_write",
    sourceMetadata: {},
    contextConfig,
  };
}
