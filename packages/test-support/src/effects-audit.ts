// The exactly-once audit of effects, in SQL over a Recall database after a fault run has settled: every accepted
// input committed once (one outbox row, truth maintained, its expected facts present once), nothing
// written twice (each kind of row by its natural key: same source, same span, same content), no work
// left running or queued without a live job, and what the faults left behind in the attempt records.
import { Client } from "pg";

/** A fact an input must have produced exactly once (names compared case-insensitively). */
export interface ExpectedFact {
  subject: string;
  predicate: string;
  object: string;
}

export interface AcceptedInput {
  type: "turn" | "document";
  id: string;
  facts: ExpectedFact[];
  /** Labels of instructions it must have produced once. */
  instructions?: string[];
}

export interface Duplicate {
  kind: string;
  key: string;
  count: number;
}

export interface OpenItem {
  id: string;
  queue: string;
  status: string;
  /** The BullMQ job's state, when the caller can read it. */
  job?: string;
}

export interface EffectsReport {
  inputs: number;
  committed: number;
  missing: { type: string; id: string; why: string }[];
  duplicates: Duplicate[];
  /** Work items in no final state; `stuck` are those without a live job. */
  open: OpenItem[];
  stuck: OpenItem[];
  failed: { id: string; queue: string; status: string; errorClass: string | null; message: string | null }[];
  abandonedAttempts: number;
  /** Attempt records left `running` on items that are not. */
  openAttempts: number;
  attemptsByQueue: { queue: string; maxUsed: number; maxAttempts: number; items: number }[];
}

export interface EffectsAuditOptions {
  databaseUrl: string;
  accepted: AcceptedInput[];
  /** The state of work item `id`'s job (BullMQ: waiting, active, delayed, …, or unknown). */
  jobState?: (queue: string, workItemId: string) => Promise<string>;
}

/** Live BullMQ states: the job will still run, or is running. */
const LIVE = new Set(["active", "waiting", "delayed", "prioritized", "waiting-children"]);

export async function auditEffects(options: EffectsAuditOptions): Promise<EffectsReport> {
  const client = new Client({ connectionString: options.databaseUrl });
  await client.connect();
  try {
    const q = async <T extends object>(sql: string, values: unknown[] = []) => (await client.query<T>(sql, values)).rows;
    const missing = await missingInputs(q, options.accepted);
    const open = await q<OpenItem>(
      `SELECT id, queue, status::text AS status FROM work_items WHERE status NOT IN ('succeeded', 'dead', 'failed', 'cancelled') ORDER BY created_at`,
    );
    for (const item of open) item.job = options.jobState ? await options.jobState(item.queue, item.id) : undefined;
    const failed = await q<EffectsReport["failed"][number]>(
      `SELECT id, queue, status::text AS status, error_class::text AS "errorClass", error_message AS message FROM work_items WHERE status IN ('dead', 'failed')`,
    );
    const [attempts] = await q<{ abandoned: number; open: number }>(
      `SELECT (SELECT count(*)::int FROM work_attempts WHERE error_class = 'abandoned') AS abandoned,
              (SELECT count(*)::int FROM work_attempts a JOIN work_items w ON w.id = a.work_item_id
                WHERE a.status = 'running' AND w.status <> 'running') AS open`,
    );
    const attemptsByQueue = await q<EffectsReport["attemptsByQueue"][number]>(
      `SELECT queue, max(attempts)::int AS "maxUsed", min(max_attempts)::int AS "maxAttempts", count(*)::int AS items FROM work_items GROUP BY queue ORDER BY queue`,
    );
    return {
      inputs: options.accepted.length,
      committed: options.accepted.length - new Set(missing.map((m) => m.id)).size,
      missing,
      duplicates: await duplicates(q),
      open,
      stuck: open.filter((i) => !i.job || !LIVE.has(i.job)),
      failed,
      abandonedAttempts: attempts?.abandoned ?? 0,
      openAttempts: attempts?.open ?? 0,
      attemptsByQueue,
    };
  } finally {
    await client.end();
  }
}

type Query = <T extends object>(sql: string, values?: unknown[]) => Promise<T[]>;

/** Inputs not committed exactly once: no (or several) outbox rows, truth maintenance not done, an expected fact missing or doubled. */
async function missingInputs(q: Query, accepted: AcceptedInput[]): Promise<EffectsReport["missing"]> {
  const ids = accepted.map((a) => a.id);
  const progress = await q<{ id: string; outbox: number; tm: string | null }>(
    `SELECT s.id::text AS id,
            (SELECT count(*)::int FROM outbox_events o WHERE o.payload->>'subjectId' = s.id::text) AS outbox,
            (SELECT w.status::text FROM work_items w WHERE w.queue = 'truth_maintenance' AND w.subject_id = s.id) AS tm
       FROM unnest($1::uuid[]) AS s(id)`,
    [ids],
  );
  const facts = await q<{ source: string; subject: string; predicate: string; object: string; n: number }>(
    `SELECT coalesce(a.turn_id, a.document_id)::text AS source, lower(se.name) AS subject, r.predicate, lower(oe.name) AS object, count(*)::int AS n
       FROM relations r JOIN assertions a ON a.id = r.assertion_id
       JOIN entities se ON se.id = r.subject_id JOIN entities oe ON oe.id = r.object_id
      WHERE r.retracted_at IS NULL AND coalesce(a.turn_id, a.document_id) = ANY($1::uuid[])
      GROUP BY 1, 2, 3, 4`,
    [ids],
  );
  const instructions = await q<{ source: string; label: string; n: number }>(
    `SELECT coalesce(turn_id, document_id)::text AS source, label, count(*)::int AS n FROM instructions
      WHERE retracted_at IS NULL AND coalesce(turn_id, document_id) = ANY($1::uuid[]) GROUP BY 1, 2`,
    [ids],
  );
  const factCount = new Map(facts.map((f) => [`${f.source}|${f.subject}|${f.predicate}|${f.object}`, f.n]));
  const instructionCount = new Map(instructions.map((i) => [`${i.source}|${i.label}`, i.n]));
  const byId = new Map(progress.map((p) => [p.id, p]));
  const missing: EffectsReport["missing"] = [];
  for (const input of accepted) {
    const p = byId.get(input.id);
    const miss = (why: string) => missing.push({ type: input.type, id: input.id, why });
    if (!p || p.outbox !== 1) miss(`${p?.outbox ?? 0} outbox rows`);
    if (p?.tm !== "succeeded") miss(`truth maintenance ${p?.tm ?? "never created"}`);
    for (const f of input.facts) {
      const n = factCount.get(`${input.id}|${f.subject.toLowerCase()}|${f.predicate}|${f.object.toLowerCase()}`) ?? 0;
      if (n !== 1) miss(`${n} × ${f.subject} ${f.predicate} ${f.object}`);
    }
    for (const label of input.instructions ?? []) {
      const n = instructionCount.get(`${input.id}|${label}`) ?? 0;
      if (n !== 1) miss(`${n} × instruction ${label}`);
    }
  }
  return missing;
}

/** Each kind of row grouped by its natural key; a group of more than one is a duplicate. */
const DUPLICATE_QUERIES: Record<string, string> = {
  entities: `SELECT context_id || ' ' || identity_key || ' ' || type AS key, count(*)::int AS count
               FROM entities WHERE retracted_at IS NULL GROUP BY context_id, identity_key, type`,
  assertions: `SELECT concat_ws(' ', coalesce(a.document_node_id, a.turn_id, a.fact_write_id), s.identity_key, a.predicate,
                      coalesce(o.identity_key, a.object_literal), a.start_byte, a.end_byte) AS key, count(*)::int AS count
                 FROM assertions a JOIN entities s ON s.id = a.subject_entity_id LEFT JOIN entities o ON o.id = a.object_entity_id
                WHERE a.retracted_at IS NULL GROUP BY 1`,
  attributes: `SELECT concat_ws(' ', coalesce(a.document_node_id, a.turn_id, a.fact_write_id), e.identity_key, t.key, t.value, a.start_byte) AS key,
                      count(*)::int AS count
                 FROM attributes t JOIN assertions a ON a.id = t.assertion_id JOIN entities e ON e.id = t.entity_id
                WHERE t.retracted_at IS NULL GROUP BY 1`,
  relations: `SELECT concat_ws(' ', coalesce(a.document_node_id, a.turn_id, a.fact_write_id), s.identity_key, r.predicate, o.identity_key, a.start_byte) AS key,
                     count(*)::int AS count
                FROM relations r JOIN assertions a ON a.id = r.assertion_id
                JOIN entities s ON s.id = r.subject_id JOIN entities o ON o.id = r.object_id
               WHERE r.retracted_at IS NULL GROUP BY 1`,
  instructions: `SELECT concat_ws(' ', coalesce(turn_id, document_id, fact_write_id), start_byte, label) AS key, count(*)::int AS count
                   FROM instructions WHERE retracted_at IS NULL GROUP BY 1`,
  uncertainties: `SELECT concat_ws(' ', coalesce(turn_id, document_id, fact_write_id), about, entity_id, key, array_to_string(fact_ids, ',')) AS key,
                         count(*)::int AS count
                    FROM uncertainties WHERE retracted_at IS NULL GROUP BY 1`,
  outbox_events: `SELECT concat_ws(' ', payload->>'subjectType', payload->>'subjectId') AS key, count(*)::int AS count FROM outbox_events GROUP BY 1`,
  supersessions: `SELECT concat_ws(' ', older_id, newer_id) AS key, count(*)::int AS count FROM supersessions WHERE undone_at IS NULL GROUP BY 1`,
  superseded_twice: `SELECT older_id::text AS key, count(*)::int AS count FROM supersessions WHERE undone_at IS NULL GROUP BY 1`,
  knowledge_candidates: `SELECT concat_ws(' ', subject_id, kind, payload::text) AS key, count(*)::int AS count
                           FROM knowledge_candidates WHERE status = 'committed' GROUP BY 1`,
};

async function duplicates(q: Query): Promise<Duplicate[]> {
  const found: Duplicate[] = [];
  for (const [kind, sql] of Object.entries(DUPLICATE_QUERIES)) {
    for (const row of await q<{ key: string; count: number }>(`SELECT * FROM (${sql}) g WHERE count > 1`)) found.push({ kind, ...row });
  }
  return found;
}

/** One line per finding, for a test's failure message or the soak's report. */
export function describeEffects(report: EffectsReport): string {
  const lines = [
    `inputs ${report.inputs}, committed exactly once ${report.committed}, missing ${new Set(report.missing.map((m) => m.id)).size}, ` +
      `duplicates ${report.duplicates.length}, open ${report.open.length} (stuck ${report.stuck.length}), failed/dead ${report.failed.length}, ` +
      `abandoned attempts ${report.abandonedAttempts}, open attempts ${report.openAttempts}`,
    ...openSummary(report.open),
    ...report.missing.slice(0, 20).map((m) => `  missing ${m.type} ${m.id}: ${m.why}`),
    ...report.duplicates.slice(0, 20).map((d) => `  duplicate ${d.kind} ×${d.count}: ${d.key}`),
    ...report.stuck.slice(0, 20).map((i) => `  stuck ${i.queue} ${i.id} ${i.status} (job ${i.job ?? "unknown"})`),
    ...report.failed.slice(0, 20).map((f) => `  ${f.status} ${f.queue} ${f.id}: ${f.errorClass} ${f.message}`),
  ];
  return lines.join("\n");
}

/** Open work items counted by queue, status and job state. */
function openSummary(open: OpenItem[]): string[] {
  const counts = new Map<string, number>();
  for (const i of open)
    counts.set(`${i.queue} ${i.status} job=${i.job ?? "?"}`, (counts.get(`${i.queue} ${i.status} job=${i.job ?? "?"}`) ?? 0) + 1);
  return [...counts].map(([key, n]) => `  open ${key}: ${n}`);
}
