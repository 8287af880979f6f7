// Starts the processors for the chosen queues, plus the outbox relay, the webhook dispatcher and the retention of
// the pipeline's records, in this process.
import type { Worker } from "bullmq";
import { webhookOptions } from "@recall/config";
import { CHANNELS, NotificationListener } from "@recall/db";
import {
  HAND_BACK,
  OutboxRelay,
  PipelineRetention,
  WebhookDispatcher,
  createStageWorker,
  startHeartbeat,
  workerName,
  type LoadingStage,
  type QueueName,
  type RedisConnection,
  type StageWorkerOptions,
} from "@recall/pipeline";
import { settlesWithin } from "@recall/telemetry";
import type { WorkerDeps } from "./deps";
import { commitArtifactsProcessor } from "./processors/commit-artifacts.processor";
import { extractAssertionsProcessor } from "./processors/extract-assertions.processor";
import { extractWindowProcessor } from "./processors/extract-window.processor";
import { batchExtract } from "./windowing/batch-extract";
import { windowAwareExtract } from "./windowing/windowed-turn";
import { byKind, groupStage } from "./windowing/group-stage";
import { truthMaintenanceProcessor } from "./processors/truth-maintenance.processor";
import { validateArtifactsProcessor } from "./processors/validate-artifacts.processor";

/** Interactive extraction's jobs per model call it may have out (see `slots` in startWorkers). */
export const EXTRACTION_OVERLAP = 2;

export interface WorkerRuntime {
  workers: Worker[];
  relay: OutboxRelay;
  webhooks: WebhookDispatcher;
  /**
   * Stops taking jobs and waits for the running ones; those not finished within `timeoutMs` are handed back
   * to their queues (attempt abandoned, no retry spent). Answers whether everything finished in time.
   */
  close(timeoutMs?: number): Promise<{ drained: boolean }>;
}

export function startWorkers(deps: WorkerDeps, connection: RedisConnection, queues: readonly QueueName[]): WorkerRuntime {
  const listener = new NotificationListener({
    databaseUrl: deps.config.DATABASE_URL,
    channels: [CHANNELS.outbox, CHANNELS.webhooks],
    onError: (err) => deps.logger.warn({ err: err.message }, "outbox notification connection lost; reconnecting"),
  });
  void listener.start();
  const relay = new OutboxRelay({
    listener,
    db: deps.db,
    queues: deps.queues,
    logger: deps.logger,
    pollMs: deps.config.OUTBOX_POLL_MS,
    runningLeaseMs: deps.config.RECALL_RUNNING_LEASE_SECONDS * 1_000,
    sweepAfterMs: deps.config.RECALL_SWEEP_AFTER_MS,
    sweepIntervalMs: deps.config.RECALL_SWEEP_INTERVAL_MS,
  });
  const webhooks = new WebhookDispatcher({ ...webhookOptions(deps.config), db: deps.db, logger: deps.logger, listener });
  const retention = new PipelineRetention({ db: deps.db, logger: deps.logger, days: deps.config.RECALL_PIPELINE_RETENTION_DAYS });
  // A window's later stages run as one job per stage for all its turns, and so do those of a batch's turns the rules
  // finished (windowing/group-stage.ts).
  const perTurnOrGroup = <I, W>(queue: QueueName, turn: LoadingStage<I, W>) =>
    byKind(turn, { window: groupStage(deps, queue, "window", turn), batch: groupStage(deps, queue, "batch", turn) });
  const processors: Record<QueueName, StageWorkerOptions["process"]> = {
    // A history import's turns are read by one job per batch (windowing/batch-extract.ts).
    extract_assertions: byKind(windowAwareExtract(deps, extractAssertionsProcessor(deps)), {
      batch: batchExtract(deps),
    }),
    extract_window: extractWindowProcessor(deps),
    validate_artifacts: perTurnOrGroup("validate_artifacts", validateArtifactsProcessor(deps)),
    commit_artifacts: perTurnOrGroup("commit_artifacts", commitArtifactsProcessor(deps)),
    truth_maintenance: perTurnOrGroup("truth_maintenance", truthMaintenanceProcessor(deps)),
  };
  // An interactive turn's later stages run in the job of the one before, when this process runs them (chain-guard.ts).
  const chain = deps.config.RECALL_CHAINED_STAGES === "on" ? Object.fromEntries(queues.map((q) => [q, processors[q]])) : undefined;
  // Each stage's two lanes, each with slots of its own: background work never holds interactive slots (priority.ts).
  // Interactive extraction has twice the slots and WORKER_CONCURRENCY model calls (bootstrap.ts): while that many
  // calls are out, as many more jobs claim, read with the rules and write what a model answered, so the model is never
  // left waiting for a slot busy with the rest of a job.
  const slots = (queue: QueueName, lane: "interactive" | "background", concurrency: number) =>
    queue === "extract_assertions" && lane === "interactive" ? EXTRACTION_OVERLAP * concurrency : concurrency;
  const lanes = [
    { lane: "interactive", concurrency: deps.config.WORKER_CONCURRENCY },
    { lane: "background", concurrency: deps.config.WORKER_BACKGROUND_CONCURRENCY },
  ] as const;
  const workers = queues.flatMap((queue) =>
    lanes.map(({ lane, concurrency }) =>
      createStageWorker({
        queue,
        lane,
        process: processors[queue],
        db: deps.db,
        queues: deps.queues,
        connection,
        prefix: deps.config.QUEUE_PREFIX,
        logger: deps.logger,
        concurrency: slots(queue, lane, concurrency),
        wallBudgetMs: deps.config.RECALL_MAX_WALL_MS,
        lockDurationMs: deps.config.WORKER_LOCK_DURATION_MS,
        faultPoint: deps.faultPoint,
        chain,
      }),
    ),
  );
  for (const worker of workers) worker.on("error", (err) => deps.logger.error({ err: err.message }, "worker error"));
  relay.start();
  webhooks.start();
  retention.start();
  const heartbeat = startHeartbeat(connection, deps.config.QUEUE_PREFIX, { name: workerName(), queues: [...queues] });
  return {
    workers,
    relay,
    webhooks,
    async close(timeoutMs = deps.config.SHUTDOWN_TIMEOUT_MS) {
      await heartbeat.stop();
      const closing = Promise.all(workers.map((w) => w.close()));
      await relay.stop();
      await webhooks.stop();
      await retention.stop();
      await listener.close();
      if (await settlesWithin(closing, timeoutMs)) return { drained: true };
      deps.logger.warn({ timeoutMs }, "jobs still running at the shutdown bound; handing them back");
      for (const w of workers) w.cancelAllJobs(HAND_BACK);
      await closing;
      return { drained: false };
    },
  };
}
