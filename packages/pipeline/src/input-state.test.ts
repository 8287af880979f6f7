// The webhook triggers and inputState are one definition: each scenario drives an input's work items through
// its transitions on real Postgres, and after every step `*.committed` was written exactly when inputState
// entered committed (or awaiting_model), with that state, `*.failed` exactly when it entered failed, and
// /metrics' awaiting-model gauge counted the input exactly while it read awaiting_model.
import { randomUUID } from "node:crypto";
import type { QueueName, SubjectType } from "@recall/contracts";
import { toJson, type WorkStatus } from "@recall/db";
import { MAINTAINED_ITEM_SQL, inputState, type InputState } from "./input-state";
import { awaitingModelCounts } from "./queue-metrics";
import { db, useQueueTestEnv } from "./testing/queue-test-env";
import { newWebhookSecret } from "./webhooks/signature";
import { ensureWorkItem } from "./work-state/create-items";

useQueueTestEnv();

interface Input {
  contextId: string;
  subjectType: SubjectType;
  subjectId: string;
}

interface Step {
  queue: QueueName;
  status: WorkStatus;
  /** Truth maintenance's checkpoint: set (a new stamp), cleared (a re-run), or left as it is. */
  maintained?: "set" | "cleared";
  state: InputState;
}

const COMMITTED: readonly InputState[] = ["committed", "awaiting_model"];

async function apply(input: Input, step: Step): Promise<void> {
  const item = await ensureWorkItem(db, { ...input, queue: step.queue, traceId: "a".repeat(32) });
  const payload = { ...(item.payload as Record<string, unknown>) };
  if (step.maintained === "set") payload["truth_maintained_at"] = new Date().toISOString();
  if (step.maintained === "cleared") delete payload["truth_maintained_at"];
  await db.workItem.update({ where: { id: item.id }, data: { status: step.status, payload: toJson(payload) } });
}

const awaitingCount = async (subjectType: SubjectType) =>
  (await awaitingModelCounts(db)).filter((c) => c.subjectType === subjectType).reduce((n, c) => n + c.count, 0);

async function drive(subjectType: SubjectType, steps: Step[]): Promise<void> {
  const input = { contextId: randomUUID(), subjectType, subjectId: randomUUID() };
  await db.webhook.create({
    data: {
      contextId: input.contextId,
      url: "http://127.0.0.1:9/x",
      events: [`${subjectType}.committed`, `${subjectType}.failed`],
      secret: newWebhookSecret(),
    },
  });
  let before: InputState = "queued";
  const awaitingBefore = await awaitingCount(subjectType);
  for (const [n, step] of steps.entries()) {
    const seen = await db.webhookEvent.count({ where: { contextId: input.contextId } });
    await apply(input, step);
    const items = await db.workItem.findMany({ where: { subjectType, subjectId: input.subjectId } });
    const after = inputState(items);
    const events = (await db.webhookEvent.findMany({ where: { contextId: input.contextId }, orderBy: { createdAt: "asc" } })).slice(seen);
    const label = `step ${n}: ${step.queue} ${step.status}`;
    expect({ label, state: after }).toEqual({ label, state: step.state });
    const committed = events.filter((e) => e.type === `${subjectType}.committed`);
    const entered = COMMITTED.includes(after) && (!COMMITTED.includes(before) || step.maintained === "set");
    expect({ label, committed: committed.map((e) => (e.data as { state: string }).state) }).toEqual({
      label,
      committed: entered ? [after] : [],
    });
    const failed = events.filter((e) => e.type === `${subjectType}.failed`).length;
    expect({ label, failed }).toEqual({ label, failed: after === "failed" && before !== "failed" ? 1 : 0 });
    const awaiting = (await awaitingCount(subjectType)) - awaitingBefore;
    expect({ label, awaiting }).toEqual({ label, awaiting: after === "awaiting_model" ? 1 : 0 });
    before = after;
  }
}

const through = (state: InputState): Step[] => [
  { queue: "extract_assertions", status: "running", state: "processing" },
  { queue: "extract_assertions", status: "succeeded", state: "processing" },
  { queue: "validate_artifacts", status: "succeeded", state: "processing" },
  { queue: "commit_artifacts", status: "succeeded", state: "processing" },
  { queue: "truth_maintenance", status: "running", state: "processing" },
  { queue: "truth_maintenance", status: "failed", maintained: "set", state },
];

test("committed when truth maintenance applied it; embedding failing for good after that leaves it committed", async () => {
  await drive("document", [
    ...through("committed"),
    { queue: "truth_maintenance", status: "running", state: "committed" },
    { queue: "truth_maintenance", status: "dead", state: "committed" },
  ]);
});

test("a stage dying before the commit fails the input, once", async () => {
  await drive("turn", [
    { queue: "extract_assertions", status: "running", state: "processing" },
    { queue: "extract_assertions", status: "dead", state: "failed" },
  ]);
  await drive("document", [...through("committed").slice(0, 5), { queue: "truth_maintenance", status: "dead", state: "failed" }]);
});

test("awaiting a model, then extracted again: committed a second time", async () => {
  await drive("turn", [
    { queue: "extract_assertions", status: "running", state: "processing" },
    { queue: "extract_assertions", status: "awaiting_model", state: "processing" },
    { queue: "validate_artifacts", status: "succeeded", state: "processing" },
    { queue: "commit_artifacts", status: "succeeded", state: "processing" },
    { queue: "truth_maintenance", status: "succeeded", maintained: "set", state: "awaiting_model" },
    // Each stage's success queues the next again (one transaction in the pipeline, two steps here: next first).
    { queue: "extract_assertions", status: "queued", state: "processing" },
    { queue: "validate_artifacts", status: "queued", state: "processing" },
    { queue: "extract_assertions", status: "succeeded", state: "processing" },
    { queue: "commit_artifacts", status: "queued", state: "processing" },
    { queue: "validate_artifacts", status: "succeeded", state: "processing" },
    { queue: "truth_maintenance", status: "queued", maintained: "cleared", state: "processing" },
    { queue: "commit_artifacts", status: "succeeded", state: "processing" },
    { queue: "truth_maintenance", status: "succeeded", maintained: "set", state: "committed" },
  ]);
});

test("the triggers' committed condition is MAINTAINED_ITEM_SQL, verbatim", async () => {
  const [row] = await db.$queryRaw<{ def: string }[]>`SELECT pg_get_functiondef('recall_input_committed'::regproc) AS def`;
  expect(row!.def).toContain(MAINTAINED_ITEM_SQL);
});
