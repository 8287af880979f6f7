// After a fault test: what one context's memory says about each input, in SQL. Constraints
// already stop the same candidate from being committed twice; what they cannot stop is a stage
// running twice (a second extraction makes new candidates, whose commit makes new assertions),
// so the audit counts per source and looks for the same fact stated twice by one source.
import type { Db } from "@recall/db";

export interface ExactlyOnceAudit {
  /** Live assertions per source (turn, document or direct write id). */
  assertionsBySource: Map<string, number>;
  /** Outbox rows per subject (a commit writes one). */
  outboxBySubject: Map<string, number>;
  /** One source stating the same fact (span, predicate, subject, object) more than once. */
  duplicateAssertions: { source: string; predicate: string; start_byte: number; copies: number }[];
  /** A subject with more than one outbox row. */
  duplicateOutbox: { subject: string; copies: number }[];
  /** A work item with more than one succeeded attempt: a stage that ran to the end twice. */
  itemsSucceededTwice: { work_item_id: string; queue: string; successes: number }[];
  /** Work items that are not finished: queued, running, failed (awaiting a retry) or waiting. */
  unfinishedItems: { work_item_id: string; queue: string; status: string }[];
}

export async function auditExactlyOnce(db: Db, contextId: string): Promise<ExactlyOnceAudit> {
  const perSource = await db.$queryRaw<{ source: string; n: bigint }[]>`
    SELECT coalesce(turn_id, document_id, fact_write_id)::text AS source, count(*) AS n
    FROM assertions WHERE context_id = ${contextId}::uuid AND retracted_at IS NULL GROUP BY 1`;
  const perSubject = await db.$queryRaw<{ subject: string; n: bigint }[]>`
    SELECT payload->>'subjectId' AS subject, count(*) AS n FROM outbox_events WHERE context_id = ${contextId}::uuid GROUP BY 1`;
  const duplicateAssertions = await db.$queryRaw<ExactlyOnceAudit["duplicateAssertions"]>`
    SELECT coalesce(turn_id, document_id, fact_write_id)::text AS source, predicate, start_byte, count(*)::int AS copies
    FROM assertions WHERE context_id = ${contextId}::uuid AND retracted_at IS NULL
    GROUP BY 1, predicate, start_byte, end_byte, subject_entity_id, object_entity_id, object_literal HAVING count(*) > 1`;
  const itemsSucceededTwice = await db.$queryRaw<ExactlyOnceAudit["itemsSucceededTwice"]>`
    SELECT w.id::text AS work_item_id, w.queue, count(*)::int AS successes
    FROM work_attempts a JOIN work_items w ON w.id = a.work_item_id
    WHERE w.context_id = ${contextId}::uuid AND a.status = 'succeeded' GROUP BY w.id, w.queue HAVING count(*) > 1`;
  const unfinishedItems = await db.$queryRaw<ExactlyOnceAudit["unfinishedItems"]>`
    SELECT id::text AS work_item_id, queue, status::text FROM work_items
    WHERE context_id = ${contextId}::uuid AND status IN ('queued', 'running', 'failed', 'waiting')`;
  const outboxBySubject = new Map(perSubject.map((r) => [r.subject, Number(r.n)]));
  return {
    assertionsBySource: new Map(perSource.map((r) => [r.source, Number(r.n)])),
    outboxBySubject,
    duplicateAssertions,
    duplicateOutbox: [...outboxBySubject].filter(([, n]) => n > 1).map(([subject, copies]) => ({ subject, copies })),
    itemsSucceededTwice,
    unfinishedItems,
  };
}

/** Per input: what it should have left and what it did, for the inputs that differ (empty when every one is exactly once). */
export function exactlyOnceMismatches(
  audit: ExactlyOnceAudit,
  inputs: { id: string; kind: string; expectedAssertions: number }[],
): { id: string; kind: string; expectedAssertions: number; assertions: number; outboxRows: number }[] {
  return inputs
    .map((input) => ({
      ...input,
      assertions: audit.assertionsBySource.get(input.id) ?? 0,
      outboxRows: audit.outboxBySubject.get(input.id) ?? 0,
    }))
    .filter((r) => r.assertions !== r.expectedAssertions || r.outboxRows !== 1)
    .map(({ id, kind, expectedAssertions, assertions, outboxRows }) => ({ id, kind, expectedAssertions, assertions, outboxRows }));
}
