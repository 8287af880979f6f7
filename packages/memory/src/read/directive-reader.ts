// Instructions and uncertainties in the reader's scope: the standing directives an
// agent must honour and the open questions it may want to ask about.
import { Prisma, type DbOrTx } from "@recall/db";
import { ITEMS_BYTES } from "./answer-bounds";
import { pageWithin } from "./clip-views";
import type { InstructionView, ListPosition, Page, ReaderScope, UnknownView } from "./read-types";
import { afterPosition, pageOf, scopeContains, visibleTo } from "./sql-fragments";
import { scopeColumn } from "../core/scope-sets";

/** Bounds a reply; a context with more standing directives than this has a different problem. */
const MAX_DIRECTIVES = 500;

/**
 * Active instructions; with `at`, those given before it and not revoked by then. A directive
 * given again (the same description, in the same or a narrower scope the reader sees) is one
 * directive to a reader, shown as its latest statement; revoking it ends every statement (revocation.ts).
 */
export async function activeInstructions(db: DbOrTx, reader: ReaderScope, at?: Date): Promise<InstructionView[]> {
  const active = (i: string) => {
    const a = Prisma.raw(i);
    return at
      ? Prisma.sql`${a}.created_at <= ${at} AND (${a}.revoked_at IS NULL OR ${a}.revoked_at > ${at}) AND (${a}.retracted_at IS NULL OR ${a}.retracted_at > ${at})`
      : Prisma.sql`${a}.active AND ${a}.retracted_at IS NULL`;
  };
  return db.$queryRaw<InstructionView[]>(Prisma.sql`
    SELECT f.id, f.label, f.description, ${scopeColumn("f")} AS scope, f.created_at FROM instructions f
    WHERE f.context_id = ${reader.contextId}::uuid AND ${visibleTo("f", reader.scope)} AND ${active("f")}
      AND NOT EXISTS (SELECT 1 FROM instructions g WHERE g.context_id = f.context_id AND g.id <> f.id
        AND lower(btrim(g.description)) = lower(btrim(f.description)) AND ${scopeContains("g", "f")}
        AND ${visibleTo("g", reader.scope)} AND ${active("g")} AND (g.created_at, g.id) > (f.created_at, f.id))
    ORDER BY f.created_at, f.id LIMIT ${MAX_DIRECTIVES}`);
}

export interface UnknownsOptions {
  includeResolved: boolean;
  /** Seen from this instant: later uncertainties are absent, later resolutions not yet made. */
  at?: Date;
}

export async function readUnknowns(db: DbOrTx, reader: ReaderScope, options: UnknownsOptions): Promise<UnknownView[]> {
  const at = options.at;
  const resolved = at ? Prisma.sql`(f.resolved AND f.resolved_at <= ${at})` : Prisma.sql`f.resolved`;
  return db.$queryRaw<UnknownView[]>(Prisma.sql`
    SELECT * FROM (
      SELECT f.id, f.about, f.reason, ${resolved} AS resolved, CASE WHEN ${resolved} THEN f.resolved_at END AS resolved_at,
        f.entity_id, f.key, f.turn_id, f.document_id, f.created_at
      FROM uncertainties f
      WHERE f.context_id = ${reader.contextId}::uuid AND ${visibleTo("f", reader.scope)}
        AND ${at ? Prisma.sql`f.created_at <= ${at} AND (f.retracted_at IS NULL OR f.retracted_at > ${at})` : Prisma.sql`f.retracted_at IS NULL`}
    ) u
    WHERE ${options.includeResolved ? Prisma.sql`TRUE` : Prisma.sql`NOT u.resolved`}
    ORDER BY u.created_at DESC, u.id DESC LIMIT ${MAX_DIRECTIVES}`);
}

/** An instruction with its history: who gave it and when, and who revoked it and when. */
export interface InstructionHistoryView extends InstructionView {
  active: boolean;
  given_by_turn_id: string | null;
  given_by_document_id: string | null;
  given_by_fact_write_id: string | null;
  revoked_at: Date | null;
  revoked_by_turn_id: string | null;
}

export interface InstructionHistoryOptions {
  includeRevoked: boolean;
  /** Page size; the page after `after` (a position this list issued). */
  limit: number;
  after?: ListPosition;
}

/**
 * Instructions in the reader's scope as they stand now, oldest first, a page at a time: the
 * active ones (the same set /profile and /state show) and, with `includeRevoked`, the revoked
 * ones too. Retracted instructions (their source was deleted) are never listed. Descriptions are
 * whole (where /profile and /state clip them, this is where they are read): a page ends early
 * once the next would take the answer past its byte budget.
 */
export async function readInstructionHistory(
  db: DbOrTx,
  reader: ReaderScope,
  options: InstructionHistoryOptions,
): Promise<Page<InstructionHistoryView>> {
  const which = options.includeRevoked ? Prisma.sql`TRUE` : Prisma.sql`f.active`;
  const rows = await db.$queryRaw<InstructionHistoryView[]>(Prisma.sql`
    SELECT f.id, f.label, f.description, ${scopeColumn("f")} AS scope, f.created_at, f.active,
      f.turn_id AS given_by_turn_id, f.document_id AS given_by_document_id, f.fact_write_id AS given_by_fact_write_id,
      f.revoked_at, f.revoked_by AS revoked_by_turn_id
    FROM instructions f
    WHERE f.context_id = ${reader.contextId}::uuid AND ${visibleTo("f", reader.scope)} AND f.retracted_at IS NULL AND ${which}
      AND ${afterPosition(Prisma.raw("f.created_at"), Prisma.raw("f.id"), options.after)}
    ORDER BY f.created_at, f.id LIMIT ${options.limit + 1}`);
  const byCreation = (r: InstructionHistoryView) => r.created_at.toISOString();
  return pageWithin(pageOf(rows, options.limit, byCreation), ITEMS_BYTES, byCreation);
}
