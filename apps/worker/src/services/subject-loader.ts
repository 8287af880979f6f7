// What a stage knows about its subject: a turn, a document, or a direct write (POST /facts;
// only its validate/commit/truth-maintenance stages ever run in a worker, when an operator
// retries one or the sweeper recovers one). A review commit's stages see the input it commits for. Built from the row the claim returned
// (packages/pipeline work-state); a document's nodes are read by the stage that needs them.
import { kindOf, turnSourceText } from "@recall/contracts";
import type { ContextConfig } from "@recall/contracts";
import type { CandidateStatus, DbOrTx, KnowledgeCandidate, Turn } from "@recall/db";
import { WorkError, type ClaimedWork } from "@recall/pipeline";

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
  contextConfig: ContextConfig;
}

/** What validation and commit see: any subject, including a direct write. */
export interface StageSubject extends Omit<Subject, "type"> {
  type: Subject["type"] | "fact_write";
  factWriteId?: string;
}

function missing(what: string): WorkError {
  return new WorkError("validation", `${what} does not exist`, false);
}

/** Any subject of a claimed item; a document's `units` are its nodes (documentUnits), read by the caller. */
export function stageSubject(claim: ClaimedWork, units: TextUnit[] = []): StageSubject {
  const { item, subject, contextConfig } = claim;
  if (kindOf(item.subjectType).direct) {
    const write = subject.factWrite;
    if (!write) throw missing(`fact write ${item.subjectId}`);
    return { ...oneText(contextConfig, "fact_write", write, write.text, write.createdAt), type: "fact_write", factWriteId: write.id };
  }
  return extractedSubject(claim, units);
}

/**
 * The input a claimed item works on: its own subject, or for a review commit (subject type `review`) the turn or
 * document whose approved candidates it commits.
 */
export function inputOf(claim: ClaimedWork): { type: string; id: string } {
  const { item, subject } = claim;
  if (!kindOf(item.subjectType).commitsApproved) return { type: item.subjectType, id: item.subjectId };
  if (!subject.review) throw missing(`review commit ${item.subjectId}`);
  return { type: subject.review.subjectType, id: subject.review.subjectId };
}

/** How each extracted kind's subject is read from its claim (the claim's join holds its row). */
const EXTRACTED: Partial<Record<string, (claim: ClaimedWork, id: string, units: TextUnit[]) => Subject>> = {
  turn: ({ subject, contextConfig }, id) => {
    if (!subject.turn) throw missing(`turn ${id}`);
    return turnSubject(subject.turn, contextConfig);
  },
  document: ({ subject, contextConfig }, id, units) => {
    const doc = subject.document;
    if (!doc) throw missing(`document ${id}`);
    const metadata = doc.metadata;
    return {
      type: "document",
      id: doc.id,
      contextId: doc.contextId,
      units,
      occurredAt: writtenAt(metadata) ?? doc.createdAt,
      scope: Array.isArray(metadata.scope) ? metadata.scope.map(String) : [],
      traceId: doc.traceId,
      documentId: doc.id,
      metadata,
      sourceType: doc.sourceType ?? "document",
      format: doc.format,
      sourceMetadata: doc.sourceMetadata ?? {},
      contextConfig,
    };
  },
};

/** A turn or a document, the subjects that are extracted. */
export function extractedSubject(claim: ClaimedWork, units: TextUnit[] = []): Subject {
  const input = inputOf(claim);
  const read = EXTRACTED[input.type];
  if (!read) throw new WorkError("validation", `a ${input.type} is not extracted`, false);
  return read(claim, input.id, units);
}

type TurnRow = Pick<
  Turn,
  "id" | "contextId" | "content" | "attachmentText" | "role" | "speaker" | "occurredAt" | "createdAt" | "traceId"
> & {
  /** The entries of the turn's scope set (core/scope-sets.ts of @recall/memory). */
  scope: string[];
};

/** A turn as the extractor sees it (a window reads its turns' rows itself). */
export function turnSubject(turn: TurnRow, contextConfig: ContextConfig): Subject {
  return {
    ...oneText(contextConfig, "conversation", turn, turnSourceText(turn), turn.occurredAt ?? turn.createdAt),
    type: "turn",
    role: turn.role,
    speaker: turn.speaker ?? undefined,
    turnId: turn.id,
  };
}

/** A subject that is one text (a turn, a direct write), with no metadata of its own. */
function oneText(
  contextConfig: ContextConfig,
  sourceType: string,
  row: { id: string; contextId: string; scope: string[]; traceId: string },
  text: string,
  occurredAt: Date,
) {
  const { id, contextId, scope, traceId } = row;
  return {
    id,
    contextId,
    scope,
    traceId,
    units: [{ text, offset: 0 }],
    occurredAt,
    metadata: {},
    sourceType,
    sourceMetadata: {},
    contextConfig,
  };
}

/** A document's nodes as text units, in order; [] for any other subject. */
/** The candidates of each claim's subject with `status`, in one read, in the claims' order (each by ordinal). */
export async function candidatesOf(db: DbOrTx, claims: readonly ClaimedWork[], status: CandidateStatus): Promise<KnowledgeCandidate[][]> {
  const key = (subjectType: string, subjectId: string) => `${subjectType}:${subjectId}`;
  const rows = await db.knowledgeCandidate.findMany({
    where: {
      subjectType: { in: [...new Set(claims.map((c) => c.item.subjectType))] },
      subjectId: { in: claims.map((c) => c.item.subjectId) },
      status,
    },
    orderBy: { ordinal: "asc" },
  });
  const bySubject = new Map<string, KnowledgeCandidate[]>();
  for (const row of rows) {
    const k = key(row.subjectType, row.subjectId);
    const list = bySubject.get(k);
    if (list) list.push(row);
    else bySubject.set(k, [row]);
  }
  return claims.map((c) => bySubject.get(key(c.item.subjectType, c.item.subjectId)) ?? []);
}

export async function documentUnits(db: DbOrTx, claim: ClaimedWork): Promise<TextUnit[]> {
  const input = inputOf(claim);
  if (!kindOf(input.type).parsed) return [];
  const nodes = await db.documentNode.findMany({ where: { documentId: input.id }, orderBy: { ordinal: "asc" } });
  return nodes.map((n) => ({ nodeId: n.id, text: n.text, offset: n.startByte }));
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
