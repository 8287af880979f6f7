// WorkItemService on real Postgres and Redis with the real worker factory: retry reuses
// finished stages, `from: "extract"` runs extraction and every later stage again, retry-many
// counts before it acts, cancel stops queued and failed work.
import { randomUUID } from "node:crypto";
import { waitFor } from "@recall/test-support";
import { WorkError } from "./errors";
import { isBackground } from "./priority";
import { enqueueWorkItem } from "./producer";
import { jobIdFor } from "./registry";
import { NotRetryableError } from "./retry";
import { attemptsOf, db, logger, newItem, queues, settled, startWorker, useQueueTestEnv } from "./testing/queue-test-env";
import { NotCancellableError, WorkItemService } from "./work-item-service";
import { ensureWorkItem } from "./work-state";

useQueueTestEnv();

const service = () => new WorkItemService({ db, queues, logger });
const stageOf = (subjectId: string, queue: string) =>
  db.workItem.findUniqueOrThrow({ where: { queue_subjectType_subjectId: { queue, subjectType: "turn", subjectId } } });

/** extract → validate → commit, where validate fails (for good) while `validateFails` says so. */
function startChain(state: { validateFails: boolean; runs: string[] }) {
  startWorker("extract_assertions", async () => (state.runs.push("extract"), { status: "succeeded", tokensUsed: 7 }));
  startWorker("validate_artifacts", async () => {
    state.runs.push("validate");
    if (state.validateFails) throw new WorkError("validation", "candidates unreadable", false);
    return { status: "succeeded" };
  });
  startWorker("commit_artifacts", async () => (state.runs.push("commit"), { status: "succeeded" }));
}

async function deadAtValidate(state: { validateFails: boolean; runs: string[] }) {
  const extract = await newItem("extract_assertions");
  await enqueueWorkItem(queues, extract);
  const validate = await waitFor(async () => {
    const item = await db.workItem.findFirst({ where: { subjectId: extract.subjectId, queue: "validate_artifacts", status: "dead" } });
    return item ?? undefined;
  });
  expect(state.runs).toEqual(["extract", "validate"]);
  return { extract, validate };
}

test("a retry reruns the failed stage from its input and reuses the finished one before it", async () => {
  const state = { validateFails: true, runs: [] as string[] };
  startChain(state);
  const { extract, validate } = await deadAtValidate(state);
  state.validateFails = false;
  const retried = await service().retry(validate.id, { contextId: validate.contextId });
  expect(retried.status).toBe("queued");
  await settled(
    (await waitFor(
      async () => (await db.workItem.findFirst({ where: { subjectId: extract.subjectId, queue: "commit_artifacts" } })) ?? undefined,
    ))!.id,
  );
  expect(state.runs).toEqual(["extract", "validate", "validate", "commit"]);
  expect((await attemptsOf(validate.id)).map((a) => [a.attempt, a.status, a.errorClass])).toEqual([
    [1, "dead", "validation"],
    [2, "succeeded", null],
  ]);
  const records = await attemptsOf(validate.id);
  expect(records.every((a) => a.traceId === "a".repeat(32) && typeof a.wallMs === "number")).toBe(true);
});

test("from extract runs extraction and every later stage again; refused once committed", async () => {
  const state = { validateFails: true, runs: [] as string[] };
  startChain(state);
  const { extract, validate } = await deadAtValidate(state);
  state.validateFails = false;
  const retried = await service().retry(validate.id, { from: "extract" });
  expect(retried.id).toBe(extract.id);
  const commit = await waitFor(
    async () => (await db.workItem.findFirst({ where: { subjectId: extract.subjectId, queue: "commit_artifacts" } })) ?? undefined,
  );
  await settled(commit!.id);
  expect(state.runs).toEqual(["extract", "validate", "extract", "validate", "commit"]);
  expect(await stageOf(extract.subjectId, "extract_assertions")).toMatchObject({ status: "succeeded", attempts: 2, tokensUsed: 14 });
  expect(await stageOf(extract.subjectId, "validate_artifacts")).toMatchObject({ status: "succeeded", attempts: 2 });
  await expect(service().retry(validate.id, { from: "extract" })).rejects.toThrow(/already committed/);
});

test("retry-many counts in a dry run, then retries only what the filter matches", async () => {
  startWorker("truth_maintenance", async () => {
    throw new WorkError("no_provider", "set RECALL_EMBEDDING_MODEL's key", false);
  });
  const contextId = randomUUID();
  const items = await Promise.all(
    [0, 1, 2].map((i) =>
      ensureWorkItem(db, {
        contextId: i < 2 ? contextId : randomUUID(),
        queue: "truth_maintenance",
        subjectType: "turn",
        subjectId: randomUUID(),
        traceId: "b".repeat(32),
      }),
    ),
  );
  for (const item of items) await enqueueWorkItem(queues, item);
  for (const item of items) await settled(item.id);
  const filter = { contextId, statuses: ["dead" as const], errorClasses: ["no_provider" as const] };
  const dry = await service().retryMany(filter, { dryRun: true });
  expect(dry).toMatchObject({ dryRun: true, matched: 2, retried: [] });
  expect((await db.workItem.findMany({ where: { status: "dead" } })).length).toBe(3);
  const done = await service().retryMany(filter);
  expect(done.matched).toBe(2);
  expect(done.retried.map((i) => i.id).sort()).toEqual(
    items
      .slice(0, 2)
      .map((i) => i.id)
      .sort(),
  );
  for (const item of items.slice(0, 2)) {
    await waitFor(async () => (await db.workItem.findFirst({ where: { id: item.id, status: "dead", attempts: 2 } })) ?? undefined);
    // Nobody waits on a bulk retry: it ran in the background lane (where contexts take turns), and says so.
    const retried = await db.workItem.findUniqueOrThrow({ where: { id: item.id } });
    expect(isBackground(retried)).toBe(true);
    expect(await queues.background.truth_maintenance.getJob(jobIdFor(item.id))).toBeDefined();
    expect(await queues.truth_maintenance.getJob(jobIdFor(item.id))).toBeUndefined();
  }
  expect((await db.workItem.findUniqueOrThrow({ where: { id: items[2]!.id } })).attempts).toBe(1);
  const page = await service().list({ statuses: ["dead"], queues: ["truth_maintenance"] }, { limit: 2 });
  expect(page.items).toHaveLength(2);
  const rest = await service().list({ statuses: ["dead"], queues: ["truth_maintenance"] }, { limit: 2, after: page.next! });
  expect(rest).toMatchObject({ items: [expect.anything()], next: null });
});

test("cancel stops a queued item (its job is removed, a worker skips it) and refuses finished work", async () => {
  const item = await newItem("commit_artifacts");
  await enqueueWorkItem(queues, item);
  const cancelled = await service().cancel(item.id);
  expect(cancelled.status).toBe("cancelled");
  expect(await queues.commit_artifacts.getJob(jobIdFor(item.id))).toBeUndefined();
  // A job that was already taken when the cancel came: the worker finds the item cancelled and runs nothing.
  const runs: string[] = [];
  startWorker("commit_artifacts", async () => (runs.push("commit"), { status: "succeeded" }));
  await enqueueWorkItem(queues, item);
  await waitFor(async () => (await (await queues.commit_artifacts.getJob(jobIdFor(item.id)))?.isCompleted()) || undefined);
  expect(runs).toEqual([]);
  expect(await db.workItem.findUniqueOrThrow({ where: { id: item.id } })).toMatchObject({ status: "cancelled", attempts: 0 });
  // Retrying a cancelled item runs it after all.
  await service().retry(item.id);
  expect(await settled(item.id)).toMatchObject({ status: "succeeded", attempts: 1 });
  expect(runs).toEqual(["commit"]);
  await expect(service().cancel(item.id)).rejects.toThrow(NotCancellableError);
  await expect(service().retry(item.id)).rejects.toThrow(NotRetryableError);
});

test("cancel stops a failed item whose retry BullMQ had scheduled", async () => {
  let calls = 0;
  startWorker("extract_assertions", async () => {
    calls += 1;
    throw Object.assign(new WorkError("provider", "rate limited", true), { retryAfterMs: 60_000 });
  });
  const item = await newItem("extract_assertions");
  await enqueueWorkItem(queues, item);
  await waitFor(async () => (await db.workItem.findUniqueOrThrow({ where: { id: item.id } })).status === "failed" || undefined);
  expect(await (await queues.extract_assertions.getJob(jobIdFor(item.id)))!.getState()).toBe("delayed");
  await service().cancel(item.id, { contextId: item.contextId });
  expect(await queues.extract_assertions.getJob(jobIdFor(item.id))).toBeUndefined();
  expect(calls).toBe(1);
  await expect(service().cancel(item.id, { contextId: randomUUID() })).rejects.toThrow(/not found/);
});
