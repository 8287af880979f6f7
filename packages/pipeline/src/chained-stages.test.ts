// Chained stages (chain-guard.ts) on real Postgres and Redis: an interactive turn's later stages run in the job that
// extracted it, each with its own attempt; the guard job stands by and is gone once each run ends, or carries a retry.
import { randomUUID } from "node:crypto";
import type { WorkItem } from "@recall/db";
import { waitFor } from "@recall/test-support";
import { WorkError } from "./errors";
import { enqueueWorkItem, findJob } from "./producer";
import type { QueueName } from "./registry";
import type { StageResult } from "./stage-handler";
import { ensureWorkItem } from "./work-state";
import { attemptsOf, db, newItem, queues, settled, startWorker, useQueueTestEnv } from "./testing/queue-test-env";

useQueueTestEnv();

const LATER: QueueName[] = ["validate_artifacts", "commit_artifacts", "truth_maintenance"];

/** The item of `queue` for the same subject as `first`. */
async function stageOf(first: WorkItem, queue: QueueName): Promise<WorkItem> {
  return db.workItem.findUniqueOrThrow({
    where: { queue_subjectType_subjectId: { queue, subjectType: first.subjectType, subjectId: first.subjectId } },
  });
}

/** Which stages ran, in order, and in which job (the extraction's, when chained). */
function recorder() {
  const ran: QueueName[] = [];
  const stage = (queue: QueueName) => async (): Promise<StageResult> => {
    ran.push(queue);
    return { status: "succeeded" };
  };
  return { ran, stage };
}

test("an interactive turn's later stages run in its extraction's job, each its own attempt, and leave no job behind", async () => {
  const { ran, stage } = recorder();
  // No worker takes the later stages' queues: only the chain can run them.
  startWorker("extract_assertions", stage("extract_assertions"), 10_000, {
    chain: Object.fromEntries(LATER.map((q) => [q, stage(q)])),
  });
  const item = await newItem("extract_assertions");
  await enqueueWorkItem(queues, item);
  const last = await waitFor(async () => {
    const tm = await db.workItem.findFirst({ where: { queue: "truth_maintenance", subjectId: item.subjectId } });
    return tm?.status === "succeeded" ? tm : undefined;
  });
  expect(ran).toEqual(["extract_assertions", ...LATER]);
  for (const queue of LATER) {
    const later = await stageOf(item, queue);
    expect([queue, later.status, later.attempts]).toEqual([queue, "succeeded", 1]);
    expect((await attemptsOf(later.id)).map((a) => a.status)).toEqual(["succeeded"]);
    // The guard was taken away once the run ended.
    expect([queue, await findJob(queues, later)]).toEqual([queue, undefined]);
  }
  expect(last.attempts).toBe(1);
});

test("background work is never chained: its next stage waits in its queue", async () => {
  const { ran, stage } = recorder();
  startWorker("extract_assertions", stage("extract_assertions"), 10_000, {
    chain: Object.fromEntries(LATER.map((q) => [q, stage(q)])),
  });
  const background = await ensureWorkItem(db, {
    contextId: randomUUID(),
    queue: "extract_assertions",
    subjectType: "turn",
    subjectId: randomUUID(),
    traceId: "b".repeat(32),
    background: true,
  });
  await enqueueWorkItem(queues, background);
  await settled(background.id);
  const next = await stageOf(background, "validate_artifacts");
  await waitFor(async () => (await findJob(queues, next)) ?? undefined, { what: "the next stage's own job" });
  expect(next.status).toBe("queued");
  expect(ran).toEqual(["extract_assertions"]);
});

test("a chained stage that fails is retried by its own job, after its backoff, with the tries it has left", async () => {
  let commits = 0;
  const commit = async (): Promise<StageResult> => {
    commits += 1;
    if (commits === 1) throw new WorkError("provider", "the strong model timed out", true, 50);
    return { status: "succeeded" };
  };
  const ok = async (): Promise<StageResult> => ({ status: "succeeded" });
  startWorker("extract_assertions", ok, 10_000, { chain: { validate_artifacts: ok, commit_artifacts: commit, truth_maintenance: ok } });
  const item = await newItem("extract_assertions");
  await enqueueWorkItem(queues, item);
  const failed = await waitFor(async () => {
    const c = await db.workItem.findFirst({ where: { queue: "commit_artifacts", subjectId: item.subjectId } });
    return c?.status === "failed" ? c : undefined;
  });
  const retry = await waitFor(async () => (await findJob(queues, failed)) ?? undefined, { what: "the retry's job" });
  // One try was spent in the chain: the job has the rest, so the stage ends dead after as many tries as a queued one.
  expect(retry.opts.attempts).toBe(failed.maxAttempts - 1);
  // The stage's own worker (any process's) takes the retry; truth maintenance then chains from it.
  startWorker("commit_artifacts", commit, 10_000, { chain: { truth_maintenance: ok } });
  const done = await settled(failed.id);
  expect(done).toMatchObject({ status: "succeeded", attempts: 2 });
  expect((await attemptsOf(failed.id)).map((a) => [a.attempt, a.status, a.errorClass])).toEqual([
    [1, "failed", "provider"],
    [2, "succeeded", null],
  ]);
  await settled((await stageOf(item, "truth_maintenance")).id);
});

test("a chained stage that can never succeed is dead after one attempt, and its guard is gone", async () => {
  const ok = async (): Promise<StageResult> => ({ status: "succeeded" });
  const refuse = async (): Promise<StageResult> => {
    throw new WorkError("validation", "candidate payload is not a diff", false);
  };
  startWorker("extract_assertions", ok, 10_000, { chain: { validate_artifacts: refuse, commit_artifacts: ok, truth_maintenance: ok } });
  const item = await newItem("extract_assertions");
  await enqueueWorkItem(queues, item);
  const validate = await waitFor(async () => {
    const v = await db.workItem.findFirst({ where: { queue: "validate_artifacts", subjectId: item.subjectId } });
    return v?.status === "dead" ? v : undefined;
  });
  expect(validate).toMatchObject({ attempts: 1, errorClass: "validation" });
  await waitFor(async () => (await findJob(queues, validate)) === undefined, { what: "the guard to be removed" });
  expect(await db.workItem.count({ where: { queue: "commit_artifacts", subjectId: item.subjectId } })).toBe(0);
});

test("while a chained stage runs, its guard job stands by, held back again as a lock is renewed", async () => {
  const ok = async (): Promise<StageResult> => ({ status: "succeeded" });
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const slow = async (): Promise<StageResult> => {
    started();
    await released;
    return { status: "succeeded" };
  };
  startWorker("extract_assertions", ok, 10_000, {
    // Renewed every 1.5 s; only a stall of 3 s (a loaded machine's event loop) would let the guard run meanwhile.
    lockDurationMs: 3_000,
    chain: { validate_artifacts: slow, commit_artifacts: ok, truth_maintenance: ok },
  });
  const item = await newItem("extract_assertions");
  await enqueueWorkItem(queues, item);
  await running;
  const validate = await stageOf(item, "validate_artifacts");
  const guard = (await findJob(queues, validate))!;
  expect(await guard.getState()).toBe("delayed");
  // Renewed while the run is alive (a killed process stops renewing, and the guard then runs): its time moves on.
  const delayed = queues.validate_artifacts.keys["delayed"]!;
  const due = async () => Number(await queues.connection.zscore(delayed, guard.id!));
  const first = await due();
  await waitFor(async () => (await due()) > first, { what: "the guard to be held back again" });
  expect(await (await findJob(queues, validate))!.getState()).toBe("delayed");
  expect((await attemptsOf(validate.id)).map((a) => a.status)).toEqual(["running"]);
  release();
  await settled(
    (
      await waitFor(async () =>
        db.workItem.findFirst({ where: { queue: "truth_maintenance", subjectId: item.subjectId } }).then((t) => t ?? undefined),
      )
    ).id,
  );
  expect(await findJob(queues, validate)).toBeUndefined();
});
