// Builds a worker process's dependencies from its config.
import path from "node:path";
import { configSecrets, cpuPoolOptions, extractorOptions, faultPoint, providerOptions, type Config } from "@recall/config";
import { createDb, isDatabaseUnavailable, serviceRoleOf } from "@recall/db";
import { CpuPool, createStagedExtractorFactory, loadSkills } from "@recall/extraction";
import { CallLimit, createEmbeddingClient, installRequestGate, type EmbeddingClient } from "@recall/llm";
import {
  RedisRateGate,
  claimQueuePrefixFor,
  createProducerConnection,
  createQueues,
  createWorkerConnection,
  isRedisUnavailable,
  type RedisConnection,
} from "@recall/pipeline";
import { createLogger, setModelPrices, type Logger, type LoggerOptions } from "@recall/telemetry";
import type { WorkerDeps } from "./deps";
import { skillCatalog } from "./services/skill-catalog";

export const DEFAULT_SKILLS_DIR = path.resolve(__dirname, "../../../skills");

export interface WorkerProcess {
  deps: WorkerDeps;
  connection: RedisConnection;
  /** Starts the CPU pool's threads now rather than on the first job (a process that serves traffic calls it). */
  warm(): Promise<void>;
  close(): Promise<void>;
}

export interface WorkerOptions {
  /** Where log lines go (a test that reads them). */
  destination?: LoggerOptions["destination"];
  /** The CPU tasks compiled to JavaScript for the pool's threads (CpuPoolOptions.tasksModule; tests build them once). */
  cpuTasksModule?: string;
}

export async function bootstrapWorker(config: Config, options: WorkerOptions = {}): Promise<WorkerProcess> {
  const logger = createLogger(config.LOG_LEVEL, "recall-worker", { destination: options.destination, secrets: configSecrets(config) });
  setModelPrices(config.RECALL_MODEL_PRICES_JSON);
  const db = createDb({ databaseUrl: config.DATABASE_URL, serviceRole: serviceRoleOf(config) });
  const producer = createProducerConnection(config.REDIS_URL);
  const connection = createWorkerConnection(config.REDIS_URL);
  const queues = createQueues({ connection: producer, prefix: config.QUEUE_PREFIX, logger });
  const close = async () => {
    await queues.close();
    producer.disconnect();
    connection.disconnect();
    await db.$disconnect();
  };
  // Before any job is taken: this prefix is this database's, or the process refuses to start (prefix-claim.ts).
  await whenReachable(() => claimQueuePrefixFor({ db, redis: connection, prefix: config.QUEUE_PREFIX }), logger).then(
    (claim) => logger.info({ queuePrefix: config.QUEUE_PREFIX, database: claim.database, created: claim.created }, "queue prefix claimed"),
    async (err: Error) => {
      await close();
      throw err;
    },
  );
  if (config.RECALL_MODEL_RPM) installRequestGate(new RedisRateGate(producer, `${config.QUEUE_PREFIX}:model-rpm`, config.RECALL_MODEL_RPM));
  const skills = await loadSkills(config.PIPELINE_SKILLS_DIR ?? DEFAULT_SKILLS_DIR);
  const cpu = new CpuPool({ ...cpuPoolOptions(config), tasksModule: options.cpuTasksModule });
  const deps: WorkerDeps = {
    config,
    db,
    queues,
    logger,
    skills: skillCatalog(skills),
    skillList: skills,
    // Interactive extraction runs more jobs than it has model calls out (worker-runtime.ts): the calls are what is limited.
    extractorFor: createStagedExtractorFactory({
      ...extractorOptions(config),
      cpu,
      callLimits: { interactive: new CallLimit(config.WORKER_CONCURRENCY) },
    }),
    cpu,
    embedder: lazyEmbedder(config),
    faultPoint: faultPoint(config),
  };
  return {
    deps,
    connection,
    warm: () => cpu.warm(),
    async close() {
      await cpu.close();
      await close();
    },
  };
}

/** How long a starting worker waits for Postgres or Redis before it gives up (a supervisor then starts it again). */
export const STARTUP_WAIT_MS = 120_000;

/**
 * Postgres or Redis down while a worker starts (restarting, or not up yet) is waited out, as running workers wait
 * out an outage, instead of ending the process; any other error, or an outage past `timeoutMs`, ends the start.
 */
export async function whenReachable<T>(attempt: () => Promise<T>, logger: Logger, timeoutMs = STARTUP_WAIT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 250; ; delay = Math.min(delay * 2, 5_000)) {
    try {
      return await attempt();
    } catch (err) {
      if (!(isDatabaseUnavailable(err) || isRedisUnavailable(err)) || Date.now() + delay > deadline) throw err;
      logger.warn({ err: (err as Error).message, retryInMs: delay }, "Postgres or Redis not reachable at start-up; waiting");
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/** Built on first use, so a missing key fails the work that needs it rather than the whole process. */
function lazyEmbedder(config: Config): () => EmbeddingClient | undefined {
  let client: EmbeddingClient | undefined;
  return () => (client ??= createEmbeddingClient(providerOptions(config)));
}
