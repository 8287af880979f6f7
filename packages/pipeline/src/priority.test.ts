// Interactive work keeps its slots: a job nobody waits for (a document, a windowed or batch turn) goes to its
// stage's background lane, whose slots are its own, at every stage, and says so on its work item so the next
// stage, the outbox relay, a retry and the sweeper queue it the same way.
import { randomUUID } from "node:crypto";
import { waitFor } from "@recall/test-support";
import { OutboxRelay } from "./outbox-relay";
import { isBackground } from "./priority";
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
  expect(isBackground({ subjectType: "review", payload: {} })).toBe(true);
});

test("interactive work runs while background work holds every background slot", async () => {
  const background: Awaited<ReturnType<typeof turnItem>>[] = [];
  for (let i = 0; i < 3; i++) background.push(await turnItem("extract_assertions", true));
  const interactive = [await turnItem("extract_assertions", false), await turnItem("extract_assertions", false)];
  for (const item of [...background, ...interactive]) await enqueueWorkItem(queues, item);
  // Each class in its own lane (priority.ts), first in, first out within it.
  expect(await queues.background.extract_assertions.getJob(jobIdFor(background[0]!.id))).toBeDefined();
  expect(await queues.extract_assertions.getJob(jobIdFor(background[0]!.id))).toBeUndefined();
  expect(await queues.extract_assertions.getJob(jobIdFor(interactive[0]!.id))).toBeDefined();

  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const order: string[] = [];
  // One slot per lane, as a worker process has its own for each; background jobs block until released.
  const workers = (["interactive", "background"] as const).map((lane) =>
    oneSlotWorker(lane, async (id) => {
      order.push(id);
      if (lane === "background") await held;
    }),
  );
  try {
    // The first background job takes its lane's only slot and holds it (the two lanes' workers start in either
    // order, so the interactive jobs may be done before it starts: what matters is that they never wait for it).
    await waitFor(async () => order.includes(background[0]!.id), { what: "the first background job to start" });
    // Both interactive jobs finish while it still holds that slot.
    await waitFor(async () => (await settledIds(interactive)) === 2, { what: "both interactive jobs" });
    expect(await db.workItem.findUniqueOrThrow({ where: { id: background[0]!.id } })).toMatchObject({ status: "running" });
    release();
    await waitFor(async () => (await settledIds(background)) === 3, { what: "the background jobs" });
  } finally {
    release();
    await Promise.all(workers.map((w) => w.close()));
  }
  expect(order.filter((id) => background.some((b) => b.id === id))).toEqual(background.map((i) => i.id));
});

/** An extract_assertions worker of one lane with one slot, as a worker process has its own for each lane. */
function oneSlotWorker(lane: "interactive" | "background", run: (itemId: string) => Promise<void>) {
  return createStageWorker({
    queue: "extract_assertions",
    lane,
    process: async ({ item }) => {
      await run(item.id);
      return { status: "succeeded" };
    },
    db,
    queues,
    connection,
    prefix,
    logger,
    wallBudgetMs: 30_000,
    concurrency: 1,
  });
}

async function settledIds(items: { id: string }[]): Promise<number> {
  return db.workItem.count({ where: { id: { in: items.map((i) => i.id) }, status: "succeeded" } });
}

test.each([true, false])("background (%s) carries on to the next stage's item and job", async (background) => {
  startWorker("validate_artifacts", async () => ({ status: "succeeded" }));
  const item = await turnItem("validate_artifacts", background);
  await enqueueWorkItem(queues, item);
  await settled(item.id);
  const next = await db.workItem.findUniqueOrThrow({
    where: { queue_subjectType_subjectId: { queue: "commit_artifacts", subjectType: "turn", subjectId: item.subjectId } },
  });
  expect(isBackground(next)).toBe(background);
  const lane = background ? queues.background : queues;
  // The item turns succeeded in its transaction; the next stage's job is queued just after it commits.
  await waitFor(async () => (await lane.commit_artifacts.getJob(jobIdFor(next.id))) ?? undefined, { what: "the next stage's job" });
  const other = background ? queues : queues.background;
  expect(await other.commit_artifacts.getJob(jobIdFor(next.id))).toBeUndefined();
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
    const lane = kind === "interactive" ? queues : queues.background;
    // Background jobs all carry their context's fair-share priority (fair-share.ts): BullMQ holds them as prioritized.
    const state = kind === "interactive" ? "waiting" : "prioritized";
    expect([kind, await lane.truth_maintenance.getJobState(jobIdFor(tm.id))]).toEqual([kind, state]);
  }
});

test("contexts take turns in the background lane: one context's backlog does not hold back another's job", async () => {
  const busy = randomUUID();
  const quiet = randomUUID();
  const item = (contextId: string) =>
    ensureWorkItem(db, {
      contextId,
      queue: "extract_assertions",
      subjectType: "turn",
      subjectId: randomUUID(),
      traceId: TRACE,
      background: true,
    });
  const backlog: Awaited<ReturnType<typeof item>>[] = [];
  for (let i = 0; i < 12; i++) backlog.push(await item(busy));
  const other = [await item(quiet), await item(quiet)];
  for (const queued of [...backlog, ...other]) await enqueueWorkItem(queues, queued);

  const order: string[] = [];
  const worker = oneSlotWorker("background", async (id) => {
    order.push(id);
  });
  try {
    await waitFor(async () => order.length === 14, { what: "every background job" });
  } finally {
    await worker.close();
  }
  // Added after twelve of the busy context's jobs, the quiet context's two run first and second of their
  // rank: round robin, not first come first served. Each context's own jobs keep their order.
  const position = (id: string) => order.indexOf(id);
  expect(position(other[0]!.id)).toBeLessThanOrEqual(1);
  expect(position(other[1]!.id)).toBeLessThanOrEqual(3);
  expect(order.filter((id) => backlog.some((b) => b.id === id))).toEqual(backlog.map((b) => b.id));
  expect(order.filter((id) => other.some((b) => b.id === id))).toEqual(other.map((b) => b.id));
  // Every started job was taken off its context's count: both counts are gone.
  expect(await connection.keys(`${prefix}:extract_assertions_background:fair:*`)).toEqual([]);
});
