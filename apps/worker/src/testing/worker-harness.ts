// Test harness: the real worker process (every queue's processor, the outbox relay)
// on its own database cloned from the migrated template and its own queue prefix.
// Inputs are stored and enqueued the way the API's ingest does.
import { configWith, loadConfig, type Config } from "@recall/config";
import { createDb, type Db, type Prisma, type Session, type WorkItem } from "@recall/db";
import { DIFF_KINDS, type ExtractionDiff } from "@recall/contracts";
import { chunkText } from "@recall/extraction";
import { scopeSetIdOf } from "@recall/memory";
import { QUEUE_NAMES, createRedisConnection, enqueueWorkItem, ensureWorkItem, type QueueName, type SubjectType } from "@recall/pipeline";
import { compiledCpuTasks, createTestDatabase, removeQueuePrefix, testQueuePrefix, waitFor, type TestDatabase } from "@recall/test-support";
import { bootstrapWorker, type WorkerProcess } from "../bootstrap";
import { startWorkers, type WorkerRuntime } from "../worker-runtime";

export interface WorkerHarness {
  db: Db;
  config: Config;
  database: TestDatabase;
  worker: WorkerProcess;
  runtime: WorkerRuntime;
  close(): Promise<void>;
}

export async function startWorkerHarness(overrides: Partial<Record<keyof Config, string>> = {}): Promise<WorkerHarness> {
  const database = await createTestDatabase();
  const config = configWith({
    DATABASE_URL: database.url,
    REDIS_URL: loadConfig().REDIS_URL,
    QUEUE_PREFIX: testQueuePrefix(),
    LOG_LEVEL: "silent",
    OUTBOX_POLL_MS: "50",
    NODE_ENV: "test",
    ...overrides,
  });
  const worker = await bootstrapWorker(config, { cpuTasksModule: compiledCpuTasks() });
  const runtime = startWorkers(worker.deps, worker.connection, QUEUE_NAMES);
  // The workers' pool shows a query outside a context nothing (row-level security); the test's reads,
  // fixtures and injected triggers see every context, as the tables' owner, through a pool of their own.
  const db = createDb({ databaseUrl: config.DATABASE_URL, poolMax: 4, serviceRole: null, unscoped: "bypass" });
  return {
    db,
    config,
    database,
    worker,
    runtime,
    async close() {
      await runtime.close();
      await worker.close();
      await db.$disconnect();
      const redis = createRedisConnection(config.REDIS_URL);
      await removeQueuePrefix(redis, config.QUEUE_PREFIX);
      redis.disconnect();
      await database.drop();
    },
  };
}

export async function newSession(h: WorkerHarness, contextId: string): Promise<Session> {
  return h.db.session.create({ data: { contextId } });
}

/** Stores a turn and enqueues its extraction, as POST …/turns does. */
export async function sendTurn(
  h: WorkerHarness,
  input: { contextId: string; session: Session; content: string; at: Date; scope?: string[]; role?: string },
): Promise<string> {
  const seq = (await h.db.turn.count({ where: { sessionId: input.session.id } })) + 1;
  const turn = await h.db.turn.create({
    data: {
      contextId: input.contextId,
      sessionId: input.session.id,
      seq,
      role: input.role ?? "user",
      content: input.content,
      scopeSetId: await scopeSetIdOf(h.db, input.contextId, input.scope ?? []),
      traceId: `${"0".repeat(24)}${seq.toString(16).padStart(8, "0")}`,
      createdAt: input.at,
    },
  });
  await enqueueFirstStage(h, input.contextId, "turn", turn.id, turn.traceId);
  return turn.id;
}

/** Stores a document with its chunks and enqueues its extraction, as POST …/documents does. */
export async function sendDocument(
  h: WorkerHarness,
  input: { contextId: string; text: string; at: Date; metadata?: Record<string, unknown> },
): Promise<string> {
  const document = await h.db.document.create({
    data: {
      contextId: input.contextId,
      text: input.text,
      metadata: (input.metadata ?? {}) as object,
      contentHash: "test",
      traceId: "f".repeat(32),
      createdAt: input.at,
      nodes: {
        create: chunkText(input.text).map((c) => ({ ordinal: c.ordinal, text: c.text, startByte: c.start_byte, endByte: c.end_byte })),
      },
    },
  });
  await enqueueFirstStage(h, input.contextId, "document", document.id, document.traceId);
  return document.id;
}

/**
 * Stores a one-chunk document as if extract_assertions had already staged `diff` for it,
 * and enqueues validate_artifacts: the rest of the pipeline runs for real, independent of
 * what the extractor would have read.
 */
export async function sendExtractedDocument(
  h: WorkerHarness,
  input: {
    contextId: string;
    text: string;
    at: Date;
    diff: Partial<Record<keyof ExtractionDiff, object[]>>;
    metadata?: Record<string, unknown>;
  },
): Promise<string> {
  const document = await h.db.document.create({
    data: {
      contextId: input.contextId,
      text: input.text,
      metadata: (input.metadata ?? {}) as object,
      contentHash: "test",
      traceId: "e".repeat(32),
      createdAt: input.at,
      nodes: { create: [{ ordinal: 0, text: input.text, startByte: 0, endByte: Buffer.byteLength(input.text) }] },
    },
    include: { nodes: true },
  });
  const ref = { contextId: input.contextId, subjectType: "document" as const, subjectId: document.id, traceId: document.traceId };
  const extract = await ensureWorkItem(h.db, { ...ref, queue: "extract_assertions" });
  await h.db.workItem.update({ where: { id: extract.id }, data: { status: "succeeded", attempts: 1 } });
  const rows = DIFF_KINDS.flatMap(([field, kind]) => (input.diff[field] ?? []).map((payload) => ({ kind, payload })));
  await h.db.knowledgeCandidate.createMany({
    data: rows.map((r, ordinal) => ({
      contextId: input.contextId,
      workItemId: extract.id,
      subjectType: "document",
      subjectId: document.id,
      documentNodeId: document.nodes[0]!.id,
      ordinal,
      kind: r.kind,
      payload: r.payload as Prisma.InputJsonValue,
      stage: "fast",
      model: "openai-compatible:test-fast",
    })),
  });
  await enqueueWorkItem(h.worker.deps.queues, await ensureWorkItem(h.db, { ...ref, queue: "validate_artifacts" }));
  return document.id;
}

async function enqueueFirstStage(h: WorkerHarness, contextId: string, subjectType: SubjectType, subjectId: string, traceId: string) {
  const item = await ensureWorkItem(h.db, { contextId, queue: "extract_assertions", subjectType, subjectId, traceId });
  await enqueueWorkItem(h.worker.deps.queues, item);
}

/** Waits until the subject has passed truth maintenance (or a stage died); returns its work items. */
export async function settled(h: WorkerHarness, subjectId: string): Promise<Record<QueueName, WorkItem>> {
  const items = await waitFor(
    async () => {
      const rows = await h.db.workItem.findMany({ where: { subjectId } });
      const done = rows.some((r) => r.status === "dead") || rows.some((r) => r.queue === "truth_maintenance" && r.status === "succeeded");
      return done ? rows : undefined;
    },
    { what: `subject ${subjectId} to pass truth maintenance`, timeoutMs: 30_000 },
  );
  return Object.fromEntries(items.map((i) => [i.queue, i])) as Record<QueueName, WorkItem>;
}
