// The pipeline's side of an erasure (PipelineRecords.forget) on real Postgres: what it deletes and what the receipt counts.
import { randomUUID } from "node:crypto";
import { transaction } from "@recall/db";
import type { QueueName, SubjectType } from "../registry";
import { db, useQueueTestEnv } from "../testing/queue-test-env";
import { ensureWorkItem } from "./create-items";
import { pipelineRecords } from "./pipeline-records";

useQueueTestEnv();

/** A work item of the subject with `tries` finished attempts. */
async function itemWithAttempts(contextId: string, queue: QueueName, subject: { type: SubjectType; id: string }, tries: number) {
  const item = await ensureWorkItem(db, { contextId, queue, subjectType: subject.type, subjectId: subject.id, traceId: "a".repeat(32) });
  for (let attempt = 1; attempt <= tries; attempt++) {
    await db.workAttempt.create({
      data: {
        workItemId: item.id,
        attempt,
        status: attempt < tries ? "failed" : "succeeded",
        startedAt: new Date(),
        finishedAt: new Date(),
      },
    });
  }
  return item;
}

test("an erasure's receipt counts every attempt of every work item it deletes: each stage's of the input, and its empty window's", async () => {
  const contextId = randomUUID();
  const turn = { type: "turn" as const, id: randomUUID() };
  const window = { type: "window" as const, id: randomUUID() };
  await itemWithAttempts(contextId, "extract_assertions", turn, 2);
  await itemWithAttempts(contextId, "commit_artifacts", turn, 3);
  await itemWithAttempts(contextId, "extract_window", window, 2);
  await itemWithAttempts(contextId, "validate_artifacts", window, 1);
  const kept = await itemWithAttempts(contextId, "extract_assertions", { type: "turn" as const, id: randomUUID() }, 1);

  const forgotten = await transaction(db, (tx) =>
    pipelineRecords.forget(tx, { contextId, subjects: [turn.id], emptyWindows: [window.id], keptWindows: [] }),
  );

  expect(forgotten.counts).toMatchObject({ work_items: 4, work_attempts: 8 });
  expect(forgotten.workItems.map((w) => w.queue).sort()).toEqual([
    "commit_artifacts",
    "extract_assertions",
    "extract_window",
    "validate_artifacts",
  ]);
  expect(await db.workAttempt.count({ where: { workItem: { contextId } } })).toBe(1);
  expect(await db.workItem.findMany({ where: { contextId }, select: { id: true } })).toEqual([{ id: kept.id }]);
});
