// The relay is woken by Postgres NOTIFY when outbox rows are committed by another connection
// (another process's commit), not by its poll: the poll here is ten minutes long.
import { randomUUID } from "node:crypto";
import { CHANNELS, createDb, NotificationListener } from "@recall/db";
import { waitFor } from "@recall/test-support";
import { OutboxRelay } from "./outbox-relay";
import { databaseUrl, db, logger, queues, useQueueTestEnv } from "./testing/queue-test-env";

useQueueTestEnv();

test("a commit on another connection wakes the relay at once; its rows reach truth_maintenance", async () => {
  const listener = new NotificationListener({ databaseUrl, channels: [CHANNELS.outbox] });
  await listener.start();
  const relay = new OutboxRelay({ db, queues, logger, pollMs: 600_000, runningLeaseMs: 900_000, listener });
  relay.start();
  const other = createDb({ databaseUrl, poolMax: 1, unscoped: "bypass" });
  try {
    // The relay's first drain (at start) is over before the row exists: only a wake-up can move it.
    await waitFor(async () => listener.connected);
    const subjectId = randomUUID();
    const contextId = randomUUID();
    await other.outboxEvent.create({
      data: {
        contextId,
        type: "committed",
        workItemId: randomUUID(),
        payload: { subjectType: "turn", subjectId },
        traceId: "b".repeat(32),
      },
    });
    const item = await waitFor(
      () => db.workItem.findFirst({ where: { queue: "truth_maintenance", subjectId } }).then((i) => i ?? undefined),
      {
        what: "the relay to move the row",
        timeoutMs: 5_000,
      },
    );
    expect(item.contextId).toBe(contextId);
    const job = await queues.truth_maintenance.getJob(`wi-${item.id}`);
    expect(job).toBeDefined();
  } finally {
    await relay.stop();
    await listener.close();
    await other.$disconnect();
  }
});
