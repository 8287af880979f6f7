// Worker entry: `--queues extract_assertions,commit_artifacts` runs only those
// processors, so each queue can scale as its own process. Default: all queues.
import "./tracing-preload";
import { loadConfig } from "@recall/config";
import { QUEUE_NAMES, isQueueName, observePipeline, type QueueName } from "@recall/pipeline";
import { SHUTDOWN_GRACE_MS, exitAfter, registry, scrapeMetrics } from "@recall/telemetry";
import { createServer, type Server } from "node:http";
import { bootstrapWorker } from "./bootstrap";
import { startWorkers } from "./worker-runtime";

export function parseQueues(argv: string[]): QueueName[] {
  const i = argv.findIndex((a) => a === "--queues" || a.startsWith("--queues="));
  if (i < 0) return [...QUEUE_NAMES];
  const raw = argv[i]!.includes("=") ? argv[i]!.split("=")[1]! : (argv[i + 1] ?? "");
  const names = raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !isQueueName(n));
  if (names.length === 0 || unknown.length > 0) {
    throw new Error(
      `--queues takes a comma-separated list of: ${QUEUE_NAMES.join(", ")}${unknown.length ? ` (unknown: ${unknown.join(", ")})` : ""}`,
    );
  }
  return names as QueueName[];
}

async function main(): Promise<void> {
  const config = loadConfig();
  const queues = parseQueues(process.argv.slice(2));
  // Before anything else: a worker whose port is taken stops here, with the reason, before it takes a job.
  const metrics = await serveMetrics(config.WORKER_METRICS_PORT);
  const worker = await bootstrapWorker(config);
  if (metrics) worker.deps.logger.info({ port: config.WORKER_METRICS_PORT }, "worker metrics on /metrics");
  // The CPU pool's threads load the rules and parsers before the first job is taken (a second or two, more on a
  // loaded machine), so that time is never spent inside a stage's wall-time budget.
  await worker.warm().catch((err: Error) => worker.deps.logger.warn({ err: err.message }, "CPU pool did not warm up"));
  const runtime = startWorkers(worker.deps, worker.connection, queues);
  worker.deps.logger.info({ queues }, "workers started");
  // Its /metrics reports the queues and the outbox too, as the API's does: a worker-only deployment is still watched.
  observePipeline(worker.deps.db, worker.deps.queues);
  metrics?.ready();
  // SIGTERM: take no more jobs, let running ones finish within SHUTDOWN_TIMEOUT_MS, hand the rest back, exit.
  const shutdown = async (signal: string) => {
    const logger = worker.deps.logger;
    logger.info({ signal, timeoutMs: config.SHUTDOWN_TIMEOUT_MS }, "shutting down: no new jobs");
    exitAfter(config.SHUTDOWN_TIMEOUT_MS + SHUTDOWN_GRACE_MS, logger);
    metrics?.server.close();
    const { drained } = await runtime.close(config.SHUTDOWN_TIMEOUT_MS);
    await worker.close();
    logger.info({ drained }, "workers stopped");
    process.exit(0);
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}

/**
 * A worker's own counters (attempts, stage durations, model calls) for Prometheus to scrape; undefined when port is 0.
 * A port already taken (two workers on one host with the same WORKER_METRICS_PORT) fails the start with that reason:
 * a worker nobody can scrape would look healthy while its alerts read "no data".
 */
export async function serveMetrics(port: number): Promise<{ server: Server; ready: () => void } | undefined> {
  if (port === 0) return undefined;
  // Bound first (to find a taken port early), but 503 until the worker has started and observes the pipeline: a scrape
  // before that would see families with no samples yet.
  let started = false;
  const server = createServer((req, res) => {
    if (req.url !== "/metrics") return void res.writeHead(404).end();
    if (!started) return void res.writeHead(503, { "Retry-After": "1" }).end("worker starting");
    scrapeMetrics().then(
      (text) => res.writeHead(200, { "Content-Type": registry.contentType }).end(text),
      (err: Error) => res.writeHead(500).end(err.message),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) => {
      const why = err.code === "EADDRINUSE" ? `port ${port} is already in use (another worker on this host?)` : err.message;
      reject(new Error(`worker metrics cannot be served: ${why}; set WORKER_METRICS_PORT to a free port, or 0 for none`));
    });
    server.listen(port, () => resolve());
  });
  return { server, ready: () => void (started = true) };
}

if (require.main === module) {
  main().catch((err: Error) => {
    console.error(err.message);
    process.exit(1);
  });
}
