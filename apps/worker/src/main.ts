// Worker entry: `--queues extract_assertions,commit_artifacts` runs only those
// processors, so each queue can scale as its own process. Default: all queues.
import "./tracing-preload";
import { loadConfig } from "@recall/config";
import { QUEUE_NAMES, isQueueName, observePipeline, type QueueName } from "@recall/pipeline";
import { SHUTDOWN_GRACE_MS, exitAfter, registry, scrapeMetrics, type Logger } from "@recall/telemetry";
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
  const worker = await bootstrapWorker(config);
  // The CPU pool's threads load the rules and parsers before the first job is taken (a second or two, more on a
  // loaded machine), so that time is never spent inside a stage's wall-time budget.
  await worker.warm().catch((err: Error) => worker.deps.logger.warn({ err: err.message }, "CPU pool did not warm up"));
  const runtime = startWorkers(worker.deps, worker.connection, queues);
  worker.deps.logger.info({ queues }, "workers started");
  // Its /metrics reports the queues and the outbox too, as the API's does: a worker-only deployment is still watched.
  observePipeline(worker.deps.db, worker.deps.queues);
  const metrics = serveMetrics(config.WORKER_METRICS_PORT, worker.deps.logger);
  // SIGTERM: take no more jobs, let running ones finish within SHUTDOWN_TIMEOUT_MS, hand the rest back, exit.
  const shutdown = async (signal: string) => {
    const logger = worker.deps.logger;
    logger.info({ signal, timeoutMs: config.SHUTDOWN_TIMEOUT_MS }, "shutting down: no new jobs");
    exitAfter(config.SHUTDOWN_TIMEOUT_MS + SHUTDOWN_GRACE_MS, logger);
    metrics?.close();
    const { drained } = await runtime.close(config.SHUTDOWN_TIMEOUT_MS);
    await worker.close();
    logger.info({ drained }, "workers stopped");
    process.exit(0);
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}

/** A worker's own counters (attempts, stage durations, model calls) for Prometheus to scrape. */
function serveMetrics(port: number, logger: Logger): Server | undefined {
  if (port === 0) return undefined;
  const server = createServer((req, res) => {
    if (req.url !== "/metrics") return void res.writeHead(404).end();
    scrapeMetrics().then(
      (text) => res.writeHead(200, { "Content-Type": registry.contentType }).end(text),
      (err: Error) => res.writeHead(500).end(err.message),
    );
  });
  // A taken port (two workers on one host with the same WORKER_METRICS_PORT) costs the metrics, never the worker.
  server.on("error", (err: Error) => logger.error({ port, err: err.message }, "worker metrics not served; set WORKER_METRICS_PORT"));
  server.listen(port, () => logger.info({ port }, "worker metrics on /metrics"));
  return server;
}

if (require.main === module) {
  main().catch((err: Error) => {
    console.error(err.message);
    process.exit(1);
  });
}
