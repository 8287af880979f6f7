// Real Postgres and Redis for this package's tests: a database cloned from the migrated
// template per test file, and a fresh queue prefix per test, removed afterwards. Call
// useQueueTestEnv() once at the top of a test file; the bindings below are live.
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import type { Worker } from "bullmq";
import { loadConfig } from "@recall/config";
import { createDb, type Db, type WorkItem } from "@recall/db";
import { createLogger } from "@recall/telemetry";
import { createTestDatabase, removeQueuePrefix, testQueuePrefix, waitFor, type TestDatabase } from "@recall/test-support";
import { createProducerConnection, createWorkerConnection, type RedisConnection } from "../connection";
import { createQueues, type QueueSet } from "../producer";
import type { QueueName } from "../registry";
import { ensureWorkItem } from "../work-state";
import type { StageWorkerOptions } from "../stage-handler";
import { createStageWorker } from "../worker-factory";

export const logger = createLogger("silent", "test");
export let db: Db;
export let queues: QueueSet;
export let connection: RedisConnection;
export let prefix: string;
/** This test file's database, for a second connection (as another process would open). */
export let databaseUrl: string;
let database: TestDatabase;
let producer: RedisConnection;
const workers: Worker[] = [];

export function useQueueTestEnv(): void {
  beforeAll(async () => {
    database = await createTestDatabase();
    databaseUrl = database.url;
    db = createDb({ databaseUrl: database.url, poolMax: 4, unscoped: "bypass" });
  });

  beforeEach(() => {
    const redisUrl = loadConfig().REDIS_URL;
    producer = createProducerConnection(redisUrl);
    connection = createWorkerConnection(redisUrl);
    prefix = testQueuePrefix();
    queues = createQueues({ connection: producer, prefix });
  });

  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.close()));
    await queues.close();
    // A test that never used Redis may end before the producer connected, and it queues no command meanwhile.
    if (producer.status !== "ready") await once(producer, "ready");
    await removeQueuePrefix(producer, prefix);
    producer.disconnect();
    connection.disconnect();
  });

  afterAll(async () => {
    await db.$disconnect();
    await database.drop();
  });
}

/** A stage worker on this test's queue prefix, closed after the test. */
/** Runs the stage in both of its lanes (priority.ts); answers the interactive lane's worker. */
export function startWorker(
  queue: QueueName,
  process: StageWorkerOptions["process"],
  wallBudgetMs = 10_000,
  more: Pick<StageWorkerOptions, "chain" | "lockDurationMs"> = {},
): Worker {
  const [interactive, background] = (["interactive", "background"] as const).map((lane) =>
    createStageWorker({ queue, lane, process, db, queues, connection, prefix, logger, wallBudgetMs, concurrency: 2, ...more }),
  );
  workers.push(interactive!, background!);
  return interactive!;
}

/** An interactive turn's work item (background work has a lane of its own: priority.ts). */
export async function newItem(queue: QueueName): Promise<WorkItem> {
  return ensureWorkItem(db, { contextId: randomUUID(), queue, subjectType: "turn", subjectId: randomUUID(), traceId: "a".repeat(32) });
}

/** Waits until the work item is succeeded or dead. */
export const settled = (id: string) =>
  waitFor(
    async () => {
      const item = await db.workItem.findUniqueOrThrow({ where: { id } });
      return ["succeeded", "dead"].includes(item.status) ? item : undefined;
    },
    { what: `work item ${id} to settle` },
  );

export const attemptsOf = (workItemId: string) => db.workAttempt.findMany({ where: { workItemId }, orderBy: { attempt: "asc" } });
