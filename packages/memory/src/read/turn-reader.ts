// A session's turns in order, only those the reader's scope may see, paged by sequence number.
import { Prisma, type DbOrTx } from "@recall/db";
import type { ListPosition, Page, ReaderScope } from "./read-types";
import { afterPosition, pageOf, visibleTo } from "./sql-fragments";

export interface TurnView {
  id: string;
  seq: number;
  role: string;
  content: string;
  scope: string[];
  trace_id: string;
  created_at: Date;
}

export interface TurnListInput extends ReaderScope {
  sessionId: string;
  limit: number;
  after?: ListPosition;
}

export async function listSessionTurns(db: DbOrTx, input: TurnListInput): Promise<Page<TurnView>> {
  const rows = await db.$queryRaw<TurnView[]>(Prisma.sql`
    SELECT f.id, f.seq, f.role, f.content, f.scope, f.trace_id, f.created_at FROM turns f
    WHERE f.session_id = ${input.sessionId}::uuid AND f.context_id = ${input.contextId}::uuid AND ${visibleTo("f", input.scope)}
      AND ${afterPosition(Prisma.raw("f.seq"), Prisma.raw("f.id"), input.after)}
    ORDER BY f.seq, f.id LIMIT ${input.limit + 1}`);
  return pageOf(rows, input.limit, (t) => t.seq);
}
