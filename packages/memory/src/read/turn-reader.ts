// A session's turns in order, only those the reader's scope may see, paged by sequence number,
// and one turn whole: where a /query excerpt's full text is read.
import type { Attachment } from "@recall/contracts";
import { Prisma, type DbOrTx } from "@recall/db";
import { ITEMS_BYTES } from "./answer-bounds";
import { pageWithin } from "./clip-views";
import type { ListPosition, Page, ReaderScope } from "./read-types";
import { afterPosition, pageOf, visibleTo } from "./sql-fragments";
import { scopeColumn } from "../core/scope-sets";

export interface TurnView {
  id: string;
  seq: number;
  role: string;
  content: string;
  /** As given (`Attachment[]` of @recall/contracts); their text is indexed and quoted after the content. */
  attachments: Attachment[];
  /** Their text, one line each: a `/query` hit's text and its byte offsets are the content, a newline, then this. */
  attachment_text: string;
  scope: string[];
  trace_id: string;
  created_at: Date;
}

export interface TurnListInput extends ReaderScope {
  sessionId: string;
  limit: number;
  after?: ListPosition;
}

/**
 * A page ends early when the next turn would take the answer past its byte budget (a turn is at
 * most 100,000 characters, 500 of them would be 50 MB); the cursor continues after the last one given.
 */
export async function listSessionTurns(db: DbOrTx, input: TurnListInput): Promise<Page<TurnView>> {
  const rows = await db.$queryRaw<TurnView[]>(Prisma.sql`
    SELECT f.id, f.seq, f.role, f.content, f.attachments, f.attachment_text, ${scopeColumn("f")} AS scope, f.trace_id, f.created_at FROM turns f
    WHERE f.session_id = ${input.sessionId}::uuid AND f.context_id = ${input.contextId}::uuid AND ${visibleTo("f", input.scope)}
      AND ${afterPosition(Prisma.raw("f.seq"), Prisma.raw("f.id"), input.after)}
    ORDER BY f.seq, f.id LIMIT ${input.limit + 1}`);
  return pageWithin(pageOf(rows, input.limit, byPosition), ITEMS_BYTES, byPosition);
}

const byPosition = (t: TurnView) => t.seq;

export interface TurnInput extends ReaderScope {
  sessionId: string;
  turnId: string;
}

/** One turn with its whole content, if the reader's scope may see it. */
export async function readSessionTurn(db: DbOrTx, input: TurnInput): Promise<TurnView | null> {
  const rows = await db.$queryRaw<TurnView[]>(Prisma.sql`
    SELECT f.id, f.seq, f.role, f.content, f.attachments, f.attachment_text, ${scopeColumn("f")} AS scope, f.trace_id, f.created_at FROM turns f
    WHERE f.id = ${input.turnId}::uuid AND f.session_id = ${input.sessionId}::uuid AND f.context_id = ${input.contextId}::uuid
      AND ${visibleTo("f", input.scope)}`);
  return rows[0] ?? null;
}
