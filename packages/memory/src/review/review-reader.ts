// Reviews as a reader sees them (GET …/reviews): the held candidate, the quote and span it rests on, and the input
// it came from, in holding order (seq), paged by seq.
import type { CandidateKind } from "@recall/contracts";
import { Prisma, type Db, type DbOrTx } from "@recall/db";
import { ITEMS_BYTES } from "../read/answer-bounds";
import { pageWithin } from "../read/clip-views";
import type { ListPosition, Page } from "../read/read-types";
import type { ReviewStatus } from "./review-decisions";

export interface ReviewFilter {
  contextId: string;
  status?: ReviewStatus;
  turnId?: string;
  documentId?: string;
  sessionId?: string;
  kind?: CandidateKind;
  category?: "identity" | "knowledge" | "context";
}

/** The operators' listing (the dashboard): any context's reviews, or one context's when `contextId` is given. */
export interface AdminReviewFilter extends Omit<ReviewFilter, "contextId"> {
  contextId?: string;
}

export interface ReviewView {
  id: string;
  status: ReviewStatus;
  kind: CandidateKind;
  memory_category: "identity" | "knowledge" | "context" | null;
  /** The candidate as it will commit (edited, once a reviewer edited it). */
  candidate: Record<string, unknown>;
  quote: string | null;
  /** UTF-8 byte offsets of the quote in the whole document text, or the turn's source text (`turnSourceText`). */
  span: { start_byte: number; end_byte: number } | null;
  source: {
    type: "turn" | "document";
    turn_id: string | null;
    session_id: string | null;
    document_id: string | null;
    document_node_id: string | null;
  };
  edit: Record<string, { from: unknown; to: unknown }> | null;
  note: string | null;
  created_at: Date;
  decided_at: Date | null;
  committed_at: Date | null;
}

interface Row {
  id: string;
  seq: number;
  status: ReviewStatus;
  kind: CandidateKind;
  memory_category: ReviewView["memory_category"];
  payload: Record<string, unknown>;
  subject_type: "turn" | "document";
  subject_id: string;
  session_id: string | null;
  document_node_id: string | null;
  node_start: number | null;
  edit: Record<string, { from: unknown; to: unknown }> | null;
  note: string | null;
  created_at: Date;
  decided_at: Date | null;
  committed_at: Date | null;
}

/** Without a context id only for the operators' listing (AdminReviewFilter); every other reader names its context. */
function conditions(filter: ReviewFilter | AdminReviewFilter): Prisma.Sql {
  const parts = filter.contextId === undefined ? [Prisma.sql`TRUE`] : [Prisma.sql`r.context_id = ${filter.contextId}::uuid`];
  if (filter.status) parts.push(Prisma.sql`r.status = ${filter.status}`);
  if (filter.turnId) parts.push(Prisma.sql`r.subject_type = 'turn' AND r.subject_id = ${filter.turnId}::uuid`);
  if (filter.documentId) parts.push(Prisma.sql`r.subject_type = 'document' AND r.subject_id = ${filter.documentId}::uuid`);
  if (filter.sessionId) parts.push(Prisma.sql`r.session_id = ${filter.sessionId}::uuid`);
  if (filter.kind) parts.push(Prisma.sql`r.kind = ${filter.kind}::"CandidateKind"`);
  if (filter.category) parts.push(Prisma.sql`r.memory_category = ${filter.category}::"MemoryCategory"`);
  return Prisma.join(parts, " AND ");
}

const COLUMNS = Prisma.raw(`r.id::text, r.seq, r.status, r.kind::text AS kind, r.memory_category::text AS memory_category,
  c.payload, r.subject_type, r.subject_id::text, r.session_id::text, c.document_node_id::text, n.start_byte AS node_start,
  r.edit, r.note, r.created_at, r.decided_at, r.committed_at`);

// Each join also requires the review's context: a row of another context is never read through a reference.
const FROM = Prisma.raw(`reviews r JOIN knowledge_candidates c ON c.id = r.candidate_id AND c.context_id = r.context_id
  LEFT JOIN LATERAL (SELECT n.start_byte FROM document_nodes n JOIN documents d ON d.id = n.document_id
    WHERE n.id = c.document_node_id AND d.context_id = r.context_id) n ON TRUE`);

export async function listReviews(db: Db, filter: ReviewFilter, page: { after?: ListPosition; limit: number }): Promise<Page<ReviewView>> {
  const after = page.after ? Prisma.sql`AND r.seq > ${Number(page.after.k)}` : Prisma.empty;
  const rows = await db.$queryRaw<Row[]>`
    SELECT ${COLUMNS} FROM ${FROM} WHERE ${conditions(filter)} ${after} ORDER BY r.seq LIMIT ${page.limit + 1}`;
  return withinAnswer(rows, page.limit, view);
}

/**
 * A page of `limit` reviews, ended early where the next would take the answer past its byte budget (a candidate
 * stored before the write caps may be long): the next page starts after the last one kept.
 */
function withinAnswer<R extends Row, V extends { id: string }>(rows: R[], limit: number, toView: (row: R) => V): Page<V> {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  const seqOf = new Map(items.map((row) => [row.id, row.seq]));
  const page = { items: items.map(toView), next: rows.length > limit && last ? { k: last.seq, id: last.id } : null };
  return pageWithin(page, ITEMS_BYTES, (v) => seqOf.get(v.id)!);
}

/**
 * Reviews across contexts for operators (the admin dashboard), each with its context id, in holding order (seq is
 * one sequence over every context), paged by seq. Only behind the admin key: a context's own readers use listReviews.
 */
export async function listReviewsForAdmin(
  db: Db,
  filter: AdminReviewFilter,
  page: { after?: ListPosition; limit: number },
): Promise<Page<ReviewView & { context_id: string }>> {
  const after = page.after ? Prisma.sql`AND r.seq > ${Number(page.after.k)}` : Prisma.empty;
  const rows = await db.$queryRaw<(Row & { context_id: string })[]>`
    SELECT ${COLUMNS}, r.context_id::text FROM ${FROM} WHERE ${conditions(filter)} ${after} ORDER BY r.seq LIMIT ${page.limit + 1}`;
  return withinAnswer(rows, page.limit, (row) => ({ ...view(row), context_id: row.context_id }));
}

export async function readReview(db: DbOrTx, contextId: string, reviewId: string): Promise<ReviewView | undefined> {
  const [row] = await db.$queryRaw<Row[]>`
    SELECT ${COLUMNS} FROM ${FROM} WHERE r.context_id = ${contextId}::uuid AND r.id = ${reviewId}::uuid`;
  return row && view(row);
}

/** Pending reviews matching a bulk decision's filter, in holding order: at most `limit` ids, and how many match. */
export async function pendingReviewIds(db: DbOrTx, filter: ReviewFilter, limit: number): Promise<{ ids: string[]; matching: number }> {
  const pending = { ...filter, status: "pending" as const };
  const rows = await db.$queryRaw<{ id: string }[]>`
    SELECT r.id::text FROM reviews r WHERE ${conditions(pending)} ORDER BY r.seq LIMIT ${limit}`;
  if (rows.length < limit) return { ids: rows.map((r) => r.id), matching: rows.length };
  const [count] = await db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM reviews r WHERE ${conditions(pending)}`;
  return { ids: rows.map((r) => r.id), matching: count?.n ?? rows.length };
}

function view(row: Row): ReviewView {
  const evidence = row.payload.evidence as { quote?: string; start_byte?: number; end_byte?: number } | undefined;
  const offset = row.node_start ?? 0;
  const span =
    evidence?.start_byte !== undefined && evidence.end_byte !== undefined
      ? { start_byte: offset + evidence.start_byte, end_byte: offset + evidence.end_byte }
      : null;
  return {
    id: row.id,
    status: row.status,
    kind: row.kind,
    memory_category: row.memory_category,
    candidate: row.payload,
    quote: evidence?.quote ?? null,
    span,
    source: {
      type: row.subject_type,
      turn_id: row.subject_type === "turn" ? row.subject_id : null,
      session_id: row.session_id,
      document_id: row.subject_type === "document" ? row.subject_id : null,
      document_node_id: row.document_node_id,
    },
    edit: row.edit,
    note: row.note,
    created_at: row.created_at,
    decided_at: row.decided_at,
    committed_at: row.committed_at,
  };
}
