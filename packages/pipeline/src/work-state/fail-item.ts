// Failure: one statement closes the attempt with its error and records it on the item, `failed`
// (BullMQ retries it) or `dead` (no retry left, or none can help). A success is never overwritten:
// when another run of the item succeeded meanwhile, only what this one spent is added.
import { Prisma, type DbOrTx, type ErrorClass } from "@recall/db";
import { jsonb } from "./item-row";
import type { StageOutput } from "./finish-item";

export interface Failure {
  workItemId: string;
  attemptId: string;
  status: "failed" | "dead";
  errorClass: ErrorClass;
  errorMessage: string;
  tokensUsed?: number;
  wallMs: number;
  /** Where the attempt stopped, on the item's payload (extraction: the unit and stage it reached). */
  result?: StageOutput;
}

/** Answers whether the failure was recorded on the item (false: another run had succeeded). */
export async function failWorkItem(db: DbOrTx, f: Failure): Promise<boolean> {
  const tokens = f.tokensUsed ?? 0;
  const done = Prisma.sql`t.status IN ('succeeded', 'awaiting_model')`;
  const payload = !f.result
    ? Prisma.sql`w.payload`
    : f.result.replace
      ? jsonb(f.result.value)
      : Prisma.sql`w.payload || ${jsonb(f.result.value)}`;
  const [row] = await db.$queryRaw<{ recorded: boolean }[]>`
    WITH target AS (
      SELECT id, status FROM work_items WHERE id = ${f.workItemId}::uuid FOR UPDATE
    ), closed AS (
      UPDATE work_attempts SET status = ${f.status}::"WorkStatus", error_class = ${f.errorClass}::"ErrorClass",
        error_message = ${f.errorMessage}, tokens_used = ${tokens}, wall_ms = ${f.wallMs}, finished_at = now()
      WHERE id = ${f.attemptId}::uuid
    )
    UPDATE work_items w SET
      status = CASE WHEN ${done} THEN w.status ELSE ${f.status}::"WorkStatus" END,
      error_class = CASE WHEN ${done} THEN w.error_class ELSE ${f.errorClass}::"ErrorClass" END,
      error_message = CASE WHEN ${done} THEN w.error_message ELSE ${f.errorMessage} END,
      finished_at = CASE WHEN ${done} THEN w.finished_at ELSE now() END,
      payload = CASE WHEN ${done} THEN w.payload ELSE ${payload} END,
      tokens_used = w.tokens_used + ${tokens}, wall_ms_used = w.wall_ms_used + ${f.wallMs}
    FROM target t WHERE w.id = t.id
    RETURNING NOT ${done} AS recorded`;
  return row?.recorded ?? false;
}
