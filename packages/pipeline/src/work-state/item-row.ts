// The work_items row in raw SQL: every statement of this folder returns rows shaped as
// Prisma's WorkItem (camelCase, enums as text), so callers get the same type either way.
import { Prisma, type WorkItem } from "@recall/db";

/** The columns of a work_items row aliased `alias`, named as Prisma's WorkItem fields. */
export function itemColumns(alias: string): Prisma.Sql {
  const a = alias;
  return Prisma.raw(
    `${a}.id, ${a}.context_id AS "contextId", ${a}.queue, ${a}.subject_type AS "subjectType", ${a}.subject_id AS "subjectId",
     ${a}.status::text AS status, ${a}.attempts, ${a}.max_attempts AS "maxAttempts", ${a}.error_class::text AS "errorClass",
     ${a}.error_message AS "errorMessage", ${a}.tokens_used AS "tokensUsed", ${a}.wall_ms_used AS "wallMsUsed",
     ${a}.trace_id AS "traceId", ${a}.payload, ${a}.created_at AS "createdAt", ${a}.started_at AS "startedAt",
     ${a}.finished_at AS "finishedAt"`,
  );
}

/** A JSON value as a jsonb parameter. */
export function jsonb(value: unknown): Prisma.Sql {
  return Prisma.sql`${JSON.stringify(value)}::jsonb`;
}

/** Rows read through itemColumns are WorkItems; the enum columns come back as their text. */
export type ItemRow = WorkItem;
