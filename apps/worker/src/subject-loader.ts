// Loads what a stage needs to know about its subject (a turn or a document).
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
  occurredAt: Date;
  scope: string[];
  traceId: string;
  turnId?: string;
  documentId?: string;
  metadata: Record<string, unknown>;
  sourceType: string;
  sourceMetadata: Record<string, unknown>;
  contextConfig: Record<string, unknown>;
}

function missing(what: string): WorkError {
  return new WorkError("validation", `${what} does not exist`, false);
}

export async function loadSubject(db: Db, payload: StagePayload): Promise<Subject> {
  const context = await db.context.findUnique({ where: { id: payload.contextId } });
  const contextConfig = (context?.config ?? {}) as Record<string, unknown>;
  if (payload.subjectType === "turn") {
    const turn = await db.turn.findUnique({ where: { id: payload.subjectId } });
    if (!turn) throw missing(`turn ${payload.subjectId}`);
    return {
      type: "turn",
      id: turn.id,
      contextId: turn.contextId,
      units: [{ text: turn.content, offset: 0 }],
      role: turn.role,
      occurredAt: turn.createdAt,
      scope: turn.scope,
      traceId: turn.traceId,
      turnId: turn.id,
      metadata: {},
      sourceType: "conversation",
      sourceMetadata: {},
      contextConfig,
    };
  }
  const doc = await db.document.findUnique({
    where: { id: payload.subjectId },
    include: { nodes: { orderBy: { ordinal: "asc" } }, source: true },
  });
  if (!doc) throw missing(`document ${payload.subjectId}`);
  const metadata = (doc.metadata ?? {}) as Record<string, unknown>;
  return {
    type: "document",
    id: doc.id,
    contextId: doc.contextId,
    units: doc.nodes.map((n) => ({ nodeId: n.id, text: n.text, offset: n.startByte })),
    occurredAt: doc.createdAt,
    scope: Array.isArray(metadata.scope) ? metadata.scope.map(String) : [],
    traceId: doc.traceId,
    documentId: doc.id,
    metadata,
    sourceType: doc.source?.type ?? "document",
    sourceMetadata: (doc.source?.metadata ?? {}) as Record<string, unknown>,
    contextConfig,
  };
}
