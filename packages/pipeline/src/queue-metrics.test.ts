// Queue depth, the oldest waiting job's age and the outbox backlog, as a scrape of the registry
// (what /metrics serves) reports them, on real Redis and Postgres.
import { randomUUID } from "node:crypto";
import { scrapeMetrics } from "@recall/telemetry";
import { sampleValue, waitFor } from "@recall/test-support";
import { enqueueWorkItem } from "./producer";
import { observePipeline } from "./queue-metrics";
import { db, newItem, queues, useQueueTestEnv } from "./testing/queue-test-env";

useQueueTestEnv();

test("a scrape reports each queue's jobs by state and its oldest waiting job's age, read from Redis", async () => {
  observePipeline(db, queues);
  const before = await scrapeMetrics();
  expect(sampleValue(before, "recall_queue_jobs", { queue: "commit_artifacts", state: "waiting" })).toBe(0);
  expect(sampleValue(before, "recall_queue_oldest_waiting_age_seconds", { queue: "commit_artifacts" })).toBe(0);
  // No worker runs in this test, so the jobs wait.
  for (let i = 0; i < 3; i++) await enqueueWorkItem(queues, await newItem("commit_artifacts"));
  const after = await waitFor(async () => {
    const text = await scrapeMetrics();
    return sampleValue(text, "recall_queue_oldest_waiting_age_seconds", { queue: "commit_artifacts" }) > 0.05 ? text : undefined;
  });
  expect(sampleValue(after, "recall_queue_jobs", { queue: "commit_artifacts", state: "waiting" })).toBe(3);
  expect(sampleValue(after, "recall_queue_jobs", { queue: "extract_assertions", state: "waiting" })).toBe(0);
  expect(sampleValue(after, "recall_queue_oldest_waiting_age_seconds", { queue: "commit_artifacts" })).toBeLessThan(60);
});

test("a scrape reports the outbox events not yet relayed and how old the oldest is", async () => {
  observePipeline(db, queues);
  expect(sampleValue(await scrapeMetrics(), "recall_outbox_pending_events")).toBe(0);
  const item = await newItem("commit_artifacts");
  await db.outboxEvent.create({
    data: {
      contextId: randomUUID(),
      type: "committed",
      workItemId: item.id,
      payload: {},
      traceId: item.traceId,
      createdAt: new Date(Date.now() - 5_000),
    },
  });
  const text = await scrapeMetrics();
  expect(sampleValue(text, "recall_outbox_pending_events")).toBe(1);
  expect(sampleValue(text, "recall_outbox_lag_seconds")).toBeGreaterThanOrEqual(5);
  await db.outboxEvent.updateMany({ data: { processedAt: new Date() } });
  expect(sampleValue(await scrapeMetrics(), "recall_outbox_lag_seconds")).toBe(0);
});
