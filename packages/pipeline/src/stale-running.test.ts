// Stale-running recovery on real Postgres and Redis: what a process that died mid-attempt
// leaves behind (a `running` item with an open attempt record) is taken back by the sweeper.
import { UnrecoverableError, Worker } from "bullmq";
import { waitFor } from "@recall/test-support";
import { OutboxRelay } from "./outbox-relay";
import { enqueueWorkItem } from "./producer";
import { jobIdFor, type QueueName } from "./registry";
import { retryWorkItem } from "./retry";
import { recoverStaleRunning } from "./stale-running";
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
import { batchExtraction, turnExtraction } from "./extraction-mode";
import { claimGroupTurns, claimWorkItem, ensureWorkItem } from "./work-state";

useQueueTestEnv();
// Each test sees only its own items: a sweep takes back whatever is stale in the database.
afterEach(() => db.workItem.deleteMany());

const LEASE_MS = 60_000;
const TRACE = "f".repeat(32);
const recover = () => recoverStaleRunning({ db, queues, logger, leaseMs: LEASE_MS });
const succeed = async () => ({ status: "succeeded" as const });

/** A work item as a process leaves it when it dies during attempt `attempt`, `ago` ms ago. */
async function leftRunning(queue: QueueName, { attempt = 1, ago = 2 * LEASE_MS } = {}) {
  const item = await newItem(queue);
  await db.workItem.update({ where: { id: item.id }, data: { attempts: attempt - 1 } });
  await claimWorkItem(db, { workItemId: item.id, traceId: null });
  const startedAt = new Date(Date.now() - ago);
  await db.workAttempt.updateMany({ where: { workItemId: item.id }, data: { startedAt } });
  return db.workItem.update({ where: { id: item.id }, data: { startedAt } });
}

const attemptSummary = async (id: string) =>
  (await attemptsOf(id)).map((a) => [
    a.attempt,
    a.status,
    a.errorClass,
    a.errorMessage?.startsWith("abandoned:") ?? false,
    a.finishedAt !== null,
  ]);
/** attempt, status, error class, abandoned, finished: the first attempt's process died, the second ran. */
const ABANDONED_THEN_SUCCEEDED = [
  [1, "failed", "abandoned", true, true],
  [2, "succeeded", null, false, true],
];

test("a running item with an old attempt and no job is closed as abandoned, queued again and completed", async () => {
  const item = await leftRunning("commit_artifacts");
  const relay = new OutboxRelay({ db, queues, logger, pollMs: 1_000, runningLeaseMs: LEASE_MS });

  expect(await relay.sweep()).toBe(1);
  const taken = await db.workItem.findUniqueOrThrow({ where: { id: item.id } });
  expect(taken).toMatchObject({ status: "queued", attempts: 1, errorClass: "abandoned", finishedAt: null });
  expect(taken.errorMessage).toMatch(/^abandoned: attempt 1 started .* no live job after the 60 s lease .*queued again/);
  expect(await attemptSummary(item.id)).toEqual([[1, "failed", "abandoned", true, true]]);
  expect(await queues.commit_artifacts.getJobState(jobIdFor(item.id))).toBe("waiting");

  startWorker("commit_artifacts", succeed);
  expect(await settled(item.id)).toMatchObject({ status: "succeeded", attempts: 2, errorClass: null });
  expect(await attemptSummary(item.id)).toEqual(ABANDONED_THEN_SUCCEEDED);
});

test("an item whose attempt is within the lease, or whose job is still queued, is left alone", async () => {
  const fresh = await leftRunning("validate_artifacts", { ago: LEASE_MS / 2 });
  const waiting = await leftRunning("validate_artifacts");
  await enqueueWorkItem(queues, waiting);

  expect(await recover()).toEqual([]);
  for (const item of [fresh, waiting]) {
    expect(await db.workItem.findUniqueOrThrow({ where: { id: item.id } })).toMatchObject({ status: "running", errorClass: null });
    expect(await attemptSummary(item.id)).toEqual([[1, "running", null, false, false]]);
  }
});

test("an item whose job a live worker is running is left alone, however long it takes", async () => {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  startWorker("extract_assertions", async () => {
    await released;
    return { status: "succeeded", next: false };
  });
  const item = await newItem("extract_assertions");
  await enqueueWorkItem(queues, item);
  try {
    await waitFor(async () => (await db.workItem.findUniqueOrThrow({ where: { id: item.id } })).status === "running");
    await db.workItem.update({ where: { id: item.id }, data: { startedAt: new Date(Date.now() - 2 * LEASE_MS) } });
    expect(await queues.extract_assertions.getJobState(jobIdFor(item.id))).toBe("active");
    expect(await recover()).toEqual([]);
  } finally {
    release();
  }
  expect(await settled(item.id)).toMatchObject({ status: "succeeded", attempts: 1 });
  expect(await attemptSummary(item.id)).toEqual([[1, "succeeded", null, false, true]]);
});

test("with no attempts left it is dead, says why, and an operator retry completes it", async () => {
  const item = await leftRunning("truth_maintenance", { attempt: 5 });

  expect(await recover()).toEqual([{ workItemId: item.id, status: "dead" }]);
  const dead = await db.workItem.findUniqueOrThrow({ where: { id: item.id } });
  expect(dead).toMatchObject({ status: "dead", errorClass: "abandoned" });
  expect(dead.finishedAt).not.toBeNull();
  expect(dead.errorMessage).toMatch(/^abandoned: .*no attempts left, retry it/);
  expect(await attemptSummary(item.id)).toEqual([[5, "dead", "abandoned", true, true]]);
  expect(await queues.truth_maintenance.getJob(jobIdFor(item.id))).toBeUndefined();

  startWorker("truth_maintenance", succeed);
  await retryWorkItem(db, queues, dead);
  expect(await settled(item.id)).toMatchObject({ status: "succeeded", attempts: 6, errorClass: null });
});

test("an item whose job BullMQ failed without the worker recording it (a stalled job) runs again", async () => {
  const item = await leftRunning("validate_artifacts");
  await enqueueWorkItem(queues, item);
  // What BullMQ does to a job whose worker died too often: it fails it, and no processor code runs.
  const stalled = new Worker("validate_artifacts", () => Promise.reject(new UnrecoverableError("job stalled more than allowable limit")), {
    connection,
    prefix,
  });
  await waitFor(async () => (await queues.validate_artifacts.getJobState(jobIdFor(item.id))) === "failed");
  await stalled.close();

  expect(await recover()).toEqual([{ workItemId: item.id, status: "queued" }]);
  startWorker("validate_artifacts", async () => ({ status: "succeeded", next: false }));
  expect(await settled(item.id)).toMatchObject({ status: "succeeded", attempts: 2 });
  expect(await attemptSummary(item.id)).toEqual(ABANDONED_THEN_SUCCEEDED);
});

test("two sweepers at once take an item back once", async () => {
  const item = await leftRunning("commit_artifacts");
  const [a, b] = await Promise.all([recover(), recover()]);
  expect([...a, ...b]).toEqual([{ workItemId: item.id, status: "queued" }]);
  expect(await attemptSummary(item.id)).toEqual([[1, "failed", "abandoned", true, true]]);
  expect(await queues.commit_artifacts.getJobCounts("waiting")).toMatchObject({ waiting: 1 });
});

test("a job BullMQ runs again after its worker died closes the attempt that worker left open", async () => {
  const item = await leftRunning("commit_artifacts", { ago: 1_000 });
  startWorker("commit_artifacts", succeed);
  await enqueueWorkItem(queues, item);

  expect(await settled(item.id)).toMatchObject({ status: "succeeded", attempts: 2 });
  expect(await attemptSummary(item.id)).toEqual(ABANDONED_THEN_SUCCEEDED);
});

test("a turn's item held by its window's job is left to the window while that will run, and runs alone once it will not", async () => {
  const context = await db.context.create({ data: { name: "window sweep" } });
  const session = await db.session.create({ data: { contextId: context.id } });
  const turn = await db.turn.create({
    data: { contextId: context.id, sessionId: session.id, seq: 1, role: "user", content: "hi", traceId: TRACE },
  });
  const window = await db.extractionWindow.create({ data: { contextId: context.id, sessionId: session.id, turnIds: [turn.id] } });
  const ref = { contextId: context.id, queue: "commit_artifacts" as const, traceId: TRACE };
  const held = await ensureWorkItem(db, {
    ...ref,
    subjectType: "turn",
    subjectId: turn.id,
    waiting: true,
    payload: { window_id: window.id },
  });
  const windowItem = await ensureWorkItem(db, { ...ref, subjectType: "window", subjectId: window.id });
  await db.$transaction((tx) => claimGroupTurns(tx, "commit_artifacts", { kind: "window", id: window.id }, TRACE));
  await db.workItem.update({ where: { id: held.id }, data: { startedAt: new Date(Date.now() - 2 * LEASE_MS) } });

  expect(await recover()).toEqual([]);
  expect(await db.workItem.findUniqueOrThrow({ where: { id: held.id } })).toMatchObject({ status: "running" });

  await db.workItem.update({ where: { id: windowItem.id }, data: { status: "dead" } });
  expect(await recover()).toEqual([{ workItemId: held.id, status: "queued" }]);
  expect(await db.workItem.findUniqueOrThrow({ where: { id: held.id } })).toMatchObject({ status: "queued", payload: {} });
  expect(await queues.commit_artifacts.getJobState(jobIdFor(held.id))).toBe("waiting");
});

test("a turn's extraction held by its batch's job is left to the batch while that will run, and runs alone once it will not", async () => {
  const context = await db.context.create({ data: { name: "batch sweep" } });
  const session = await db.session.create({ data: { contextId: context.id } });
  const turn = await db.turn.create({
    data: { contextId: context.id, sessionId: session.id, seq: 1, role: "user", content: "hi", traceId: TRACE },
  });
  const batch = await db.turnBatch.create({ data: { contextId: context.id, sessionId: session.id, firstSeq: 1, lastSeq: 1 } });
  const ref = { contextId: context.id, traceId: TRACE };
  const held = await ensureWorkItem(db, turnExtraction({ ...ref, turnId: turn.id, mode: "windowed", batchId: batch.id }));
  const batchItem = await ensureWorkItem(db, batchExtraction({ ...ref, batchId: batch.id }));
  expect(held).toMatchObject({ status: "waiting", payload: { mode: "windowed", batch_id: batch.id } });
  expect(await db.$transaction((tx) => claimGroupTurns(tx, "extract_assertions", { kind: "batch", id: batch.id }, TRACE))).toEqual([
    expect.objectContaining({ turn: expect.objectContaining({ id: turn.id }) }),
  ]);
  await db.workItem.update({ where: { id: held.id }, data: { startedAt: new Date(Date.now() - 2 * LEASE_MS) } });

  expect(await recover()).toEqual([]);
  expect(await db.workItem.findUniqueOrThrow({ where: { id: held.id } })).toMatchObject({ status: "running" });

  await db.workItem.update({ where: { id: batchItem.id }, data: { status: "dead" } });
  expect(await recover()).toEqual([{ workItemId: held.id, status: "queued" }]);
  expect(await db.workItem.findUniqueOrThrow({ where: { id: held.id } })).toMatchObject({
    status: "queued",
    payload: { mode: "windowed" },
  });
  expect(await attemptsOf(held.id)).toEqual([
    expect.objectContaining({ status: "failed", errorMessage: "batch: its batch's extract_assertions stopped (dead)" }),
  ]);
  expect(await queues.background.extract_assertions.getJobState(jobIdFor(held.id))).toBe("prioritized");
});
