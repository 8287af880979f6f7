// Work whose job Redis lost, and runs that overlap, on real Postgres and Redis: the sweeper puts
// back queued and retry-waiting items whose job is gone; a duplicate run never undoes a success;
// a Redis that refuses the next stage's job leaves it queued for the sweeper, not the attempt failed.
import { Worker } from "bullmq";
import { loadConfig } from "@recall/config";
import { PrivateRedis, removeQueuePrefix, waitFor } from "@recall/test-support";
import { createProducerConnection } from "./connection";
import { WorkError } from "./errors";
import { requeueLostJobs } from "./lost-jobs";
import { createQueues, enqueueWorkItem } from "./producer";
import { jobIdFor } from "./registry";
import {
  attemptsOf,
  connection,
  db,
  logger,
  newItem,
  prefix,
  queues,
  settled,
  startWorker,
  useQueueTestEnv,
} from "./testing/queue-test-env";
import { createStageWorker } from "./worker-factory";

useQueueTestEnv();
afterEach(() => db.workItem.deleteMany());

const sweep = () => requeueLostJobs({ db, queues, logger, olderThanMs: 0 });
const nextItemOf = (subjectId: string) =>
  db.workItem.findUnique({
    where: { queue_subjectType_subjectId: { queue: "validate_artifacts", subjectType: "turn", subjectId } },
  });

test("a failed item waiting for its retry whose delayed job vanished is queued again and completes", async () => {
  let calls = 0;
  startWorker("commit_artifacts", async () => {
    calls += 1;
    // A long backoff: the retry would still be waiting when the job is lost.
    if (calls === 1) throw Object.assign(new WorkError("provider", "overloaded", true), { retryAfterMs: 600_000 });
    return { status: "succeeded" };
  });
  const item = await newItem("commit_artifacts");
  await enqueueWorkItem(queues, item);
  await waitFor(async () => (await queues.commit_artifacts.getJobState(jobIdFor(item.id))) === "delayed", { what: "the retry delayed" });
  expect(await sweep()).toEqual([]);
  await (await queues.commit_artifacts.getJob(jobIdFor(item.id)))!.remove();

  expect(await sweep()).toEqual([item.id]);
  expect(await sweep()).toEqual([]);
  const done = await settled(item.id);
  expect(done).toMatchObject({ status: "succeeded", attempts: 2 });
  expect((await attemptsOf(item.id)).map((a) => [a.attempt, a.status])).toEqual([
    [1, "failed"],
    [2, "succeeded"],
  ]);
});

test("a queued item whose job is missing, or kept finished under its id, is put back; one with a live job is left alone", async () => {
  const missing = await newItem("truth_maintenance");
  const finished = await newItem("truth_maintenance");
  const live = await newItem("truth_maintenance");
  // A finished job left under the item's id makes a plain add a no-op; the sweeper must replace it.
  // (A bare BullMQ worker completes it without touching the work item.)
  const bare = new Worker("truth_maintenance", async () => "done", { connection, prefix });
  await enqueueWorkItem(queues, finished);
  await waitFor(async () => (await queues.truth_maintenance.getJobState(jobIdFor(finished.id))) === "completed", { what: "the job done" });
  await bare.close();
  await enqueueWorkItem(queues, live);

  expect((await sweep()).sort()).toEqual([missing.id, finished.id].sort());
  for (const item of [missing, finished, live]) expect(await queues.truth_maintenance.getJobState(jobIdFor(item.id))).toBe("waiting");
});

test("a duplicate run that fails after another run succeeded leaves the success, and the next stage is chained once", async () => {
  const item = await newItem("extract_assertions");
  // A second prefix holds a second job for the same work item, as after Redis lost the first one's state.
  const producer = createProducerConnection(loadConfig().REDIS_URL);
  const otherQueues = createQueues({ connection: producer, prefix: `${prefix}-dup` });
  const late = createStageWorker({
    queue: "extract_assertions",
    db,
    queues: otherQueues,
    connection,
    prefix: `${prefix}-dup`,
    logger,
    wallBudgetMs: 10_000,
    process: async () => {
      await waitFor(async () => (await db.workItem.findUniqueOrThrow({ where: { id: item.id } })).status === "succeeded", {
        what: "the other run to succeed",
      });
      throw new WorkError("provider", "late failure", true);
    },
  });
  try {
    await enqueueWorkItem(otherQueues, item);
    await waitFor(async () => (await attemptsOf(item.id)).length === 1, { what: "the late run to start" });
    startWorker("extract_assertions", async () => ({ status: "succeeded" }));
    await enqueueWorkItem(queues, item);
    await waitFor(async () => (await attemptsOf(item.id)).every((a) => a.finishedAt) && (await attemptsOf(item.id)).length === 2, {
      what: "both runs to finish",
    });
    expect(await db.workItem.findUniqueOrThrow({ where: { id: item.id } })).toMatchObject({ status: "succeeded", errorClass: null });
    expect((await attemptsOf(item.id)).map((a) => a.status).sort()).toEqual(["failed", "succeeded"]);
    // The late run is not retried: its job completed as skipped.
    await waitFor(async () => (await otherQueues.extract_assertions.getJobState(jobIdFor(item.id))) === "completed", {
      what: "the late job to complete",
    });
    expect(await db.workItem.count({ where: { subjectId: item.subjectId, queue: "validate_artifacts" } })).toBe(1);
  } finally {
    await late.close();
    await otherQueues.close();
    await removeQueuePrefix(producer, `${prefix}-dup`);
    producer.disconnect();
  }
});

test("a Redis that refuses the next stage's job leaves it queued for the sweeper; the finished stage stays succeeded", async () => {
  // The worker's producer talks to a Redis of its own, which then stops: every add is refused at once.
  const down = await PrivateRedis.start();
  const refused = createProducerConnection(down.url);
  refused.on("error", () => undefined);
  const downQueues = createQueues({ connection: refused, prefix });
  await downQueues.validate_artifacts.waitUntilReady();
  await down.stop();
  const worker = createStageWorker({
    queue: "extract_assertions",
    db,
    queues: downQueues,
    connection,
    prefix,
    logger,
    wallBudgetMs: 10_000,
    process: async () => ({ status: "succeeded" }),
  });
  try {
    const item = await newItem("extract_assertions");
    await enqueueWorkItem(queues, item);
    expect(await settled(item.id)).toMatchObject({ status: "succeeded", attempts: 1 });
    expect((await attemptsOf(item.id)).map((a) => a.status)).toEqual(["succeeded"]);
    const next = await nextItemOf(item.subjectId);
    expect(next).toMatchObject({ status: "queued" });
    expect(await queues.validate_artifacts.getJobState(jobIdFor(next!.id))).toBe("unknown");

    expect(await sweep()).toEqual([next!.id]);
    expect(await queues.validate_artifacts.getJobState(jobIdFor(next!.id))).toBe("waiting");
  } finally {
    await worker.close();
    refused.disconnect();
    await downQueues.close().catch(() => undefined);
    await down.close();
  }
});
