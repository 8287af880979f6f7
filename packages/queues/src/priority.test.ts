// Interactive work first: a job nobody waits for (a document, a windowed or batch turn) goes behind jobs a
// caller is waiting on, at every stage, and says so on its work item so the next stage, the outbox relay, a
// retry and the sweeper queue it the same way.
import { randomUUID } from "node:crypto";
import { waitFor } from "@recall/test-support";
import { OutboxRelay } from "./outbox-relay";
import { BACKGROUND_PRIORITY, isBackground } from "./priority";
import { enqueueWorkItem } from "./producer";
import { jobIdFor } from "./registry";
import { ensureWorkItem } from "./work-state";
import { createStageWorker } from "./worker-factory";
import { connection, db, logger, prefix, queues, settled, startWorker, useQueueTestEnv } from "./testing/queue-test-env";

useQueueTestEnv();

const TRACE = "c".repeat(32);

function turnItem(queue: "extract_assertions" | "validate_artifacts", background: boolean) {
  return ensureWorkItem(db, { contextId: randomUUID(), queue, subjectType: "turn", subjectId: randomUUID(), traceId: TRACE, background });
}

test("which work is background", async () => {
  // (The test environment's clean-up talks to Redis; a test that never did would find its connection not yet open.)
  await queues.extract_assertions.count();
  expect(isBackground({ subjectType: "document" })).toBe(true);
  expect(isBackground({ subjectType: "window" })).toBe(true);
  expect(isBackground({ subjectType: "turn", payload: { mode: "windowed" } })).toBe(true);
  expect(isBackground({ subjectType: "turn", payload: { background: true } })).toBe(true);
  expect(isBackground({ subjectType: "turn", payload: {} })).toBe(false);
  expect(isBackground({ subjectType: "fact_write", payload: null })).toBe(false);
});

test("interactive jobs are taken before background jobs queued earlier", async () => {
  const background = [];
  for (let i = 0; i < 4; i++) background.push(await turnItem("extract_assertions", true));
  const interactive = [await turnItem("extract_assertions", false), await turnItem("extract_assertions", false)];
  for (const item of [...background, ...interactive]) await enqueueWorkItem(queues, item);
  expect((await queues.extract_assertions.getJob(jobIdFor(background[0]!.id)))?.opts.priority).toBe(BACKGROUND_PRIORITY);
  expect((await queues.extract_assertions.getJob(jobIdFor(interactive[0]!.id)))?.opts.priority ?? 0).toBe(0);

  const order: string[] = [];
  // One job at a time, started after everything was queued: the order is the queue's.
  const worker = createStageWorker({
    queue: "extract_assertions",
    process: async ({ item }) => {
      order.push(item.id);
      return { status: "succeeded" };
    },
    db,
    queues,
    connection,
    prefix,
    logger,
    wallBudgetMs: 10_000,
    concurrency: 1,
  });
  try {
    await waitFor(async () => order.length === 6, { what: "all six jobs to run" });
  } finally {
    await worker.close();
  }
  expect(order.slice(0, 2).sort()).toEqual(interactive.map((i) => i.id).sort());
  // Among background jobs the order stays first in, first out.
  expect(order.slice(2)).toEqual(background.map((i) => i.id));
});

test.each([true, false])("background (%s) carries on to the next stage's item and job", async (background) => {
  startWorker("validate_artifacts", async () => ({ status: "succeeded" }));
  const item = await turnItem("validate_artifacts", background);
  await enqueueWorkItem(queues, item);
  await settled(item.id);
  const next = await db.workItem.findUniqueOrThrow({
    where: { queue_subjectType_subjectId: { queue: "commit_artifacts", subjectType: "turn", subjectId: item.subjectId } },
  });
  expect(isBackground(next)).toBe(background);
  const job = await queues.commit_artifacts.getJob(jobIdFor(next.id));
  expect(job?.opts.priority ?? 0).toBe(background ? BACKGROUND_PRIORITY : 0);
});

test("the outbox relay gives truth maintenance the class of the commit that wrote the row", async () => {
  const relay = new OutboxRelay({ db, queues, logger, pollMs: 600_000, runningLeaseMs: 900_000 });
  const subjects = { background: randomUUID(), interactive: randomUUID(), document: randomUUID() };
  for (const [kind, subjectId] of Object.entries(subjects)) {
    const subjectType = kind === "document" ? "document" : "turn";
    const commit = await ensureWorkItem(db, {
      contextId: randomUUID(),
      queue: "commit_artifacts",
      subjectType,
      subjectId,
      traceId: TRACE,
      background: kind === "background",
    });
    await db.outboxEvent.create({
      data: { contextId: commit.contextId, type: "committed", workItemId: commit.id, payload: { subjectType, subjectId }, traceId: TRACE },
    });
  }
  expect(await relay.drain()).toBe(3);
  for (const [kind, subjectId] of Object.entries(subjects)) {
    const tm = await db.workItem.findFirstOrThrow({ where: { queue: "truth_maintenance", subjectId } });
    expect([kind, isBackground(tm)]).toEqual([kind, kind !== "interactive"]);
    const job = await queues.truth_maintenance.getJob(jobIdFor(tm.id));
    expect([kind, job?.opts.priority ?? 0]).toEqual([kind, kind === "interactive" ? 0 : BACKGROUND_PRIORITY]);
  }
});
