// Stages run in-process (a direct write, POST /facts: validated, committed and truth-maintained
// in the request) keep the same work items and attempt records as queue workers, through the same
// claim and finish statements, so status, provenance, operator retries and the sweeper treat them
// alike. Nothing retries an in-process stage by itself: a failure leaves it dead for an operator.
import type { Db, Tx } from "@recall/db";
import { QUEUES } from "../registry";
import { claimWorkItem } from "./claim-item";
import { failWorkItem } from "./fail-item";
import { finishWorkItem } from "./finish-item";
import { successorOf } from "./create-items";
import { truthMaintainedNow } from "./checkpoints";
import { commitAnnouncer } from "./pipeline-records";

export interface DirectStageRef {
  contextId: string;
  subjectType: "fact_write";
  subjectId: string;
  traceId: string;
}

export interface DirectStageRun<T> {
  /** The stage's writes, in the transaction that records its success. */
  write(tx: Tx): Promise<T>;
  /** Creates the truth_maintenance item with the success (the commit stage). */
  chainTruthMaintenance?: boolean;
  /** Marks truth maintenance applied on the item with the success. */
  truthMaintained?: boolean;
}

/** The work-item side of in-process stages, as @recall/memory's writeFacts takes it. */
export interface DirectStages {
  /** In the transaction storing the input: validation recorded as done (attempt 1), the commit item queued. */
  open(tx: Tx, ref: DirectStageRef): Promise<{ validateItemId: string; commitItemId: string }>;
  /** One attempt of the item; answers what `write` returned and the item created after it, if any. */
  run<T>(workItemId: string, stage: DirectStageRun<T>): Promise<{ value: T; nextItemId?: string }>;
  /** Announces a commit; its truth_maintenance item is created with the commit's success (chainTruthMaintenance). */
  announce: ReturnType<typeof commitAnnouncer>;
}

export function directStages(db: Db): DirectStages {
  return {
    open: openDirectStages,
    run: (workItemId, stage) => runDirectStage(db, workItemId, stage),
    announce: commitAnnouncer({ relayed: true }),
  };
}

async function openDirectStages(tx: Tx, ref: DirectStageRef): Promise<{ validateItemId: string; commitItemId: string }> {
  const [row] = await tx.$queryRaw<{ validateItemId: string; commitItemId: string }[]>`
    WITH v AS (
      INSERT INTO work_items (id, context_id, queue, subject_type, subject_id, trace_id, max_attempts, status, attempts, started_at, finished_at)
      VALUES (gen_random_uuid(), ${ref.contextId}::uuid, 'validate_artifacts', ${ref.subjectType}, ${ref.subjectId}::uuid, ${ref.traceId},
        ${QUEUES.validate_artifacts.attempts}, 'succeeded', 1, now(), now())
      RETURNING id
    ), c AS (
      INSERT INTO work_items (id, context_id, queue, subject_type, subject_id, trace_id, max_attempts)
      VALUES (gen_random_uuid(), ${ref.contextId}::uuid, 'commit_artifacts', ${ref.subjectType}, ${ref.subjectId}::uuid, ${ref.traceId},
        ${QUEUES.commit_artifacts.attempts})
      RETURNING id
    )
    SELECT v.id AS "validateItemId", c.id AS "commitItemId" FROM v, c`;
  // A statement of its own: row-level security checks an attempt through its item, which a sibling CTE cannot see.
  await tx.$executeRaw`
    INSERT INTO work_attempts (id, work_item_id, attempt, status, started_at, finished_at, trace_id)
    VALUES (gen_random_uuid(), ${row!.validateItemId}::uuid, 1, 'succeeded', now(), now(), ${ref.traceId})`;
  return row!;
}

async function runDirectStage<T>(db: Db, workItemId: string, stage: DirectStageRun<T>): Promise<{ value: T; nextItemId?: string }> {
  const claim = await claimWorkItem(db, { workItemId, traceId: null });
  if (!claim?.claimed) throw new Error(`work item ${workItemId} could not be started (${claim ? claim.status : "missing"})`);
  const started = performance.now();
  const wallMs = () => Math.round(performance.now() - started);
  const ref = { workItemId, attemptId: claim.attemptId };
  let value: { written: T } | undefined;
  try {
    const finished = await finishWorkItem(
      db,
      {
        ...ref,
        wallMs: wallMs(),
        next: stage.chainTruthMaintenance ? successorOf(claim.item, "truth_maintenance") : undefined,
        result: stage.truthMaintained ? truthMaintainedNow() : undefined,
      },
      async (tx) => void (value = { written: await stage.write(tx) }),
    );
    if (!value) throw new Error(`work item ${workItemId} was finished by another run`);
    return { value: value.written, nextItemId: finished.next?.item.id };
  } catch (err) {
    const errorMessage = err instanceof Error ? err.message : String(err);
    await failWorkItem(db, { ...ref, status: "dead", errorClass: "internal", errorMessage, wallMs: wallMs() });
    throw err;
  }
}
