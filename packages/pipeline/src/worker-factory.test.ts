// The worker factory and the outbox relay on real Postgres and Redis.
import { randomUUID } from "node:crypto";
import type { Job, Queue } from "bullmq";
import { waitFor } from "@recall/test-support";
import { WorkError } from "./errors";
import { OutboxRelay } from "./outbox-relay";
import { NotRetryableError, retryWorkItem } from "./retry";
import { enqueueWorkItem } from "./producer";
import { jobIdFor } from "./registry";
import { HAND_BACK } from "./worker-factory";
import { attemptsOf, db, logger, newItem, queues, settled, startWorker, useQueueTestEnv } from "./testing/queue-test-env";

useQueueTestEnv();

/**
 * The job once BullMQ has moved it to `state`, read again after that: a work item is settled in Postgres before its
 * job reaches the completed or failed set, so a job read right after `settled` may not have its outcome yet.
 */
async function jobIn(queue: Queue, id: string, state: "completed" | "failed"): Promise<Job> {
  await waitFor(async () => (await (await queue.getJob(id))?.getState()) === state, { what: `job ${id} to be ${state}` });
  return (await queue.getJob(id))!;
}

/** Long enough that the sweeper in these tests never takes back a running item. */
const LEASE_MS = 600_000;

test("success marks the item succeeded, records the attempt and chains the next stage", async () => {
  startWorker("extract_assertions", async () => ({ status: "succeeded", tokensUsed: 42 }));
  const item = await newItem("extract_assertions");
  await enqueueWorkItem(queues, item);
  const done = await settled(item.id);
  expect(done).toMatchObject({ status: "succeeded", attempts: 1, tokensUsed: 42, errorClass: null });
  expect((await attemptsOf(item.id)).map((a) => a.status)).toEqual(["succeeded"]);
  const next = await db.workItem.findUniqueOrThrow({
    where: { queue_subjectType_subjectId: { queue: "validate_artifacts", subjectType: "turn", subjectId: item.subjectId } },
  });
  // The item turns succeeded in its transaction; the next stage's job is queued just after it commits.
  await waitFor(async () => (await queues.validate_artifacts.getJob(jobIdFor(next.id))) ?? undefined, { what: "the next stage's job" });
});

test("retryable failures are retried by BullMQ with one attempt record each, honouring retryAfterMs", async () => {
  let calls = 0;
  startWorker("commit_artifacts", async () => {
    calls += 1;
    if (calls < 3) throw Object.assign(new WorkError("provider", `rate limited (${calls})`, true), { retryAfterMs: 20 });
    return { status: "succeeded" };
  });
  const item = await newItem("commit_artifacts");
  await enqueueWorkItem(queues, item);
  const done = await settled(item.id);
  expect(done).toMatchObject({ status: "succeeded", attempts: 3 });
  const attempts = await attemptsOf(item.id);
  expect(attempts.map((a) => [a.attempt, a.status, a.errorClass])).toEqual([
    [1, "failed", "provider"],
    [2, "failed", "provider"],
    [3, "succeeded", null],
  ]);
});

test("an input that can never succeed is dead after one attempt, with its error class", async () => {
  startWorker("validate_artifacts", async () => {
    throw new WorkError("validation", "candidate payload is not a diff", false);
  });
  const item = await newItem("validate_artifacts");
  await enqueueWorkItem(queues, item);
  const done = await settled(item.id);
  expect(done).toMatchObject({ status: "dead", attempts: 1, errorClass: "validation", errorMessage: "candidate payload is not a diff" });
  const job = await jobIn(queues.validate_artifacts, jobIdFor(item.id), "failed");
  expect(job.attemptsMade).toBe(1);
});

test("what a job leaves in Redis is its status, or its error class and item id: never the stage's output or message", async () => {
  const quoted = 'no rule reads "Tallulah Vantresque sold the boat"';
  startWorker("extract_assertions", async () => ({ status: "succeeded", output: { value: { reason: quoted } } }));
  startWorker("validate_artifacts", async () => {
    throw new WorkError("validation", `the model refused: ${quoted}`, false);
  });
  const ran = await newItem("extract_assertions");
  const failed = await newItem("validate_artifacts");
  await enqueueWorkItem(queues, ran);
  await enqueueWorkItem(queues, failed);
  expect(await settled(ran.id)).toMatchObject({ status: "succeeded", payload: expect.objectContaining({ reason: quoted }) });
  expect(await settled(failed.id)).toMatchObject({ status: "dead", errorMessage: `the model refused: ${quoted}` });

  expect((await jobIn(queues.extract_assertions, jobIdFor(ran.id), "completed")).returnvalue).toEqual({ status: "succeeded" });
  const dead = await jobIn(queues.validate_artifacts, jobIdFor(failed.id), "failed");
  expect(dead.failedReason).toBe(`validation: work item ${failed.id}`);
  expect(JSON.stringify([dead.stacktrace, dead.data])).not.toContain("Tallulah");
});

test("the wall-time budget ends a slow attempt with class budget", async () => {
  startWorker(
    "truth_maintenance",
    (ctx) => new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve({ status: "succeeded" }))),
    200,
  );
  const item = await newItem("truth_maintenance");
  await enqueueWorkItem(queues, item);
  const done = await settled(item.id);
  expect(done).toMatchObject({ status: "dead", errorClass: "budget" });
  expect(done.errorMessage).toMatch(/wall-time budget of 200 ms/);
});

test("an unknown or malformed job is failed without retries and touches no work item", async () => {
  startWorker("extract_assertions", async () => ({ status: "succeeded" }));
  await queues.extract_assertions.add("extract_assertions", { workItemId: "not-a-uuid" } as never, { jobId: "bad-1", attempts: 5 });
  expect((await jobIn(queues.extract_assertions, "bad-1", "failed")).attemptsMade).toBe(1);
});

test("enqueueing the same work item twice makes one job (the job id derives from the work item)", async () => {
  const item = await newItem("extract_assertions");
  await enqueueWorkItem(queues, item);
  await enqueueWorkItem(queues, item);
  expect(await queues.extract_assertions.getJobCounts("waiting")).toMatchObject({ waiting: 1 });
});

test("relays move each outbox row exactly once, even when two drain at the same time", async () => {
  const contextId = randomUUID();
  const subjects = Array.from({ length: 20 }, () => randomUUID());
  await db.outboxEvent.createMany({
    data: subjects.map((subjectId) => ({
      contextId,
      type: "artifacts_committed",
      workItemId: randomUUID(),
      traceId: "b".repeat(32),
      payload: { subjectType: "turn", subjectId },
    })),
  });
  const relays = [1, 2].map(() => new OutboxRelay({ db, queues, logger, pollMs: 1_000, batchSize: 3, runningLeaseMs: LEASE_MS }));
  const moved = await Promise.all(relays.map((r) => r.drain()));
  expect(moved[0]! + moved[1]!).toBe(20);
  expect(await db.outboxEvent.count({ where: { contextId, processedAt: null } })).toBe(0);
  expect(await db.workItem.count({ where: { contextId, queue: "truth_maintenance" } })).toBe(20);
  expect(await queues.truth_maintenance.getJobCounts("waiting")).toMatchObject({ waiting: 20 });
});

test("the sweeper enqueues work items left queued without a job", async () => {
  const item = await newItem("validate_artifacts");
  await db.workItem.update({ where: { id: item.id }, data: { createdAt: new Date(Date.now() - 60_000) } });
  const relay = new OutboxRelay({ db, queues, logger, pollMs: 1_000, sweepAfterMs: 30_000, runningLeaseMs: LEASE_MS });
  expect(await queues.validate_artifacts.getJob(jobIdFor(item.id))).toBeUndefined();
  expect(await relay.sweep()).toBeGreaterThanOrEqual(1);
  expect(await queues.validate_artifacts.getJob(jobIdFor(item.id))).toBeDefined();
});

test("an operator retry of a dead item runs it again from its kept input", async () => {
  let configured = false;
  startWorker("extract_assertions", async () => {
    if (!configured) throw new WorkError("no_provider", "set RECALL_FAST_MODEL", false);
    return { status: "succeeded" };
  });
  const item = await newItem("extract_assertions");
  await enqueueWorkItem(queues, item);
  const dead = await settled(item.id);
  expect(dead).toMatchObject({ status: "dead", errorClass: "no_provider" });
  await expect(retryWorkItem(db, queues, { ...dead, status: "succeeded" })).rejects.toThrow(NotRetryableError);
  configured = true;
  await retryWorkItem(db, queues, dead);
  const done = await waitFor(async () => {
    const row = await db.workItem.findUniqueOrThrow({ where: { id: item.id } });
    return row.status === "succeeded" ? row : undefined;
  });
  expect(done.errorClass).toBeNull();
  expect((await attemptsOf(item.id)).map((a) => [a.status, a.errorClass])).toEqual([
    ["dead", "no_provider"],
    ["succeeded", null],
  ]);
});

test("a stage's last try is BullMQ's, whose count an operator's retry restarts, not the item's attempts, which go on", async () => {
  const seen: [attempt: number, lastTry: boolean][] = [];
  startWorker("validate_artifacts", async (ctx) => {
    seen.push([ctx.attempt, ctx.lastTry]);
    if (seen.length < 4) throw new WorkError("provider", "overloaded", true, 20);
    return { status: "succeeded" };
  });
  const item = await newItem("validate_artifacts");
  await enqueueWorkItem(queues, item);
  const dead = await settled(item.id);
  expect(dead).toMatchObject({ status: "dead", attempts: 3, maxAttempts: 3 });
  await retryWorkItem(db, queues, dead);
  expect(await settled(item.id)).toMatchObject({ status: "succeeded", attempts: 4 });
  // After the retry the item is past its maxAttempts, yet BullMQ has retries left: that try is not the last.
  expect(seen).toEqual([
    [1, false],
    [2, false],
    [3, true],
    [4, false],
  ]);
});

test("a job delivered again after its turn was handed to a window runs nothing (the window finishes the turn)", async () => {
  let runs = 0;
  startWorker("extract_assertions", async () => {
    runs += 1;
    return { status: "succeeded" };
  });
  const item = await newItem("extract_assertions");
  await db.workItem.update({ where: { id: item.id }, data: { status: "waiting", attempts: 1 } });
  await db.workAttempt.create({ data: { workItemId: item.id, attempt: 1, status: "waiting", startedAt: new Date() } });
  await enqueueWorkItem(queues, item);
  await waitFor(async () => (await queues.extract_assertions.getJobState(jobIdFor(item.id))) === "completed", {
    what: "the job to complete",
  });
  expect(runs).toBe(0);
  expect(await db.workItem.findUniqueOrThrow({ where: { id: item.id } })).toMatchObject({ status: "waiting", attempts: 1 });
  expect((await attemptsOf(item.id)).map((a) => [a.attempt, a.status])).toEqual([[1, "waiting"]]);
});

test("shutting down, a stage still running is handed back: attempt abandoned, item queued, job waiting with no retry spent", async () => {
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const worker = startWorker("commit_artifacts", (ctx) => {
    started();
    return new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve({ status: "succeeded" })));
  });
  const item = await newItem("commit_artifacts");
  await enqueueWorkItem(queues, item);
  await running;
  const closing = worker.close();
  worker.cancelAllJobs(HAND_BACK);
  await closing;

  expect(await db.workItem.findUniqueOrThrow({ where: { id: item.id } })).toMatchObject({
    status: "queued",
    attempts: 1,
    errorClass: "abandoned",
  });
  const [attempt] = await attemptsOf(item.id);
  expect(attempt).toMatchObject({ attempt: 1, status: "failed", errorClass: "abandoned" });
  expect(attempt!.errorMessage).toMatch(/^abandoned: handed back at shutdown/);
  const job = await queues.commit_artifacts.getJob(jobIdFor(item.id));
  expect(await job!.getState()).toBe("waiting");
  expect(job!.attemptsMade).toBe(0);

  // The next worker runs it; the item keeps every attempt record.
  startWorker("commit_artifacts", async () => ({ status: "succeeded" }));
  expect(await settled(item.id)).toMatchObject({ status: "succeeded", attempts: 2 });
});

test("a job whose work item is not in this database is left for its owner (delayed, no attempt spent), never failed", async () => {
  startWorker("extract_assertions", async () => ({ status: "succeeded" }));
  // Another deployment's item on a shared prefix: the job exists, the row does not (in this database).
  const foreign = { ...(await newItem("extract_assertions")) };
  await db.workItem.delete({ where: { id: foreign.id } });
  await enqueueWorkItem(queues, foreign);
  const job = await waitFor(
    async () => {
      const found = await queues.extract_assertions.getJob(jobIdFor(foreign.id));
      return found && (await found.getState()) === "delayed" ? found : undefined;
    },
    { what: "the job to be put back delayed" },
  );
  expect(job.attemptsMade).toBe(0);
  expect(job.failedReason ?? null).toBeNull();
});

test("a job whose item an erasure deleted (its subject's tombstone, or its context's erasure) completes at once, running nothing", async () => {
  let ran = 0;
  startWorker("extract_assertions", async () => ({ status: "succeeded", tokensUsed: ran++ }));
  const erasedInput = await newItem("extract_assertions");
  const erasedContext = await newItem("extract_assertions");
  await db.workItem.deleteMany({ where: { id: { in: [erasedInput.id, erasedContext.id] } } });
  const erasureId = randomUUID();
  await db.erasedInput.create({ data: { inputId: erasedInput.subjectId, contextId: erasedInput.contextId, kind: "turn", erasureId } });
  const receipt = { request: {}, erased: {}, counts: {}, hash: "0".repeat(64) };
  await db.erasure.create({ data: { ...receipt, contextId: erasedContext.contextId, kind: "context" } });
  for (const item of [erasedInput, erasedContext]) await enqueueWorkItem(queues, item);
  for (const item of [erasedInput, erasedContext]) {
    const state = await waitFor(
      async () => {
        const job = await queues.extract_assertions.getJob(jobIdFor(item.id));
        const now = job && (await job.getState());
        return now === "completed" || now === "delayed" || now === "failed" ? now : undefined;
      },
      { what: "the job to end" },
    );
    expect(state).toBe("completed");
  }
  expect(ran).toBe(0);
});

test("an item that fails for good tells its stage (onDead), which a window's stage uses to let its turns run alone", async () => {
  const dead: string[] = [];
  startWorker("validate_artifacts", {
    process: async () => {
      throw new WorkError("validation", "never works", false);
    },
    onDead: async (item, message) => void dead.push(`${item.id} ${message}`),
  });
  const item = await newItem("validate_artifacts");
  await enqueueWorkItem(queues, item);
  expect(await settled(item.id)).toMatchObject({ status: "dead" });
  expect(dead).toEqual([`${item.id} validation: never works`]);
});
