// Prometheus metrics (prom-client), named by the Prometheus conventions: units in the name,
// counters ending in _total. Gauges about shared state (queue depth, outbox lag) are read when
// /metrics is scraped, from sources the process registers (see observeQueues, observeOutbox).
import { AsyncLocalStorage } from "node:async_hooks";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

export const registry = new Registry();
collectDefaultMetrics({ register: registry });

// prom-client also serves three of its gauges summed under a `_total` name, a suffix the exposition conventions keep
// for counters (`promtool check metrics` refuses them); the per-type gauges (`nodejs_active_handles{type}`, …) stay.
for (const name of ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"])
  registry.removeSingleMetric(name);

export const jobsTotal = new Counter({
  name: "recall_jobs_total",
  help: "Stage attempts by queue, outcome (succeeded, failed: to be retried, dead) and error class",
  labelNames: ["queue", "outcome", "error_class"] as const,
  registers: [registry],
});

export const stageDuration = new Histogram({
  name: "recall_stage_duration_seconds",
  help: "Wall time of one stage attempt, by queue and outcome",
  labelNames: ["queue", "outcome"] as const,
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
  registers: [registry],
});

export const workItemsFinished = new Counter({
  name: "recall_work_items_finished_total",
  help: "Work items reaching an end state (succeeded, dead, cancelled), by queue and error class",
  labelNames: ["queue", "status", "error_class"] as const,
  registers: [registry],
});

export const lostJobsRequeued = new Counter({
  name: "recall_lost_jobs_requeued_total",
  help: "Work items the sweeper put back on their queue because Redis no longer held their job (flushed, restarted empty, or down at enqueue), by queue and the status it found",
  labelNames: ["queue", "status"] as const,
  registers: [registry],
});

export const webhookDeliveries = new Counter({
  name: "recall_webhook_deliveries_total",
  help: "Webhook delivery attempts by outcome: delivered (2xx), retrying (failed, tried again later), failed (given up)",
  labelNames: ["outcome"] as const,
  registers: [registry],
});

export const webhookDeliveryDuration = new Histogram({
  name: "recall_webhook_delivery_duration_seconds",
  help: "Wall time of one webhook delivery attempt (connect, send, first bytes of the answer), by outcome",
  labelNames: ["outcome"] as const,
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

export const webhooksDisabled = new Counter({
  name: "recall_webhooks_disabled_total",
  help: "Webhooks disabled because their endpoint kept failing for WEBHOOK_DISABLE_AFTER_MS",
  registers: [registry],
});

export const httpDuration = new Histogram({
  name: "recall_http_request_duration_seconds",
  help: "HTTP request duration by route template and status",
  labelNames: ["method", "route", "status"] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

export const modelCalls = new Counter({
  name: "recall_model_calls_total",
  help: "Model API calls by model, pipeline stage and outcome (ok, or the error's name)",
  labelNames: ["model", "stage", "outcome"] as const,
  registers: [registry],
});

export const modelTokens = new Counter({
  name: "recall_model_tokens_total",
  help: "Model tokens used, by model, stage and direction (input, output)",
  labelNames: ["model", "stage", "direction"] as const,
  registers: [registry],
});

export const modelCost = new Counter({
  name: "recall_model_cost_usd_total",
  help: "Estimated model spend in US dollars from the configured price table (RECALL_MODEL_PRICES_JSON), by model and stage",
  labelNames: ["model", "stage"] as const,
  registers: [registry],
});

export const extractionInputs = new Counter({
  name: "recall_extraction_inputs_total",
  help: "Extracted inputs (turns, document nodes) by the stage that finished them: heuristic, fast, strong",
  labelNames: ["stage"] as const,
  registers: [registry],
});

/** USD per million tokens, input and output, per `provider:model`. */
export type PriceTable = Record<string, { inputPerMTok: number; outputPerMTok: number }>;
let prices: PriceTable = {};

export function setModelPrices(table: PriceTable): void {
  prices = table;
}

export interface ModelCallRecord {
  model: string;
  stage: string;
  outcome: string;
  inputTokens: number;
  outputTokens: number;
}

/** A model call as a stage attempt's ledger keeps it: the record, its estimated cost, and when it ended. */
export interface LedgerEntry extends ModelCallRecord {
  /** USD from the price table; null when the model has no price there. */
  costUsd: number | null;
  at: Date;
}

const ledgers = new AsyncLocalStorage<LedgerEntry[]>();

/**
 * Runs `fn` keeping every model call made inside it (in its async context) in `calls`, so the caller can store
 * them with the attempt that made them (the usage API reads them). Calls outside any ledger only count in metrics.
 */
export async function withModelCallLedger<T>(calls: LedgerEntry[], fn: () => Promise<T>): Promise<T> {
  return ledgers.run(calls, fn);
}

export function recordModelCall(call: ModelCallRecord): void {
  const { model, stage } = call;
  modelCalls.inc({ model, stage, outcome: call.outcome });
  modelTokens.inc({ model, stage, direction: "input" }, call.inputTokens);
  modelTokens.inc({ model, stage, direction: "output" }, call.outputTokens);
  const price = prices[model];
  const costUsd = price ? (call.inputTokens * price.inputPerMTok + call.outputTokens * price.outputPerMTok) / 1e6 : null;
  if (costUsd !== null) modelCost.inc({ model, stage }, costUsd);
  ledgers.getStore()?.push({ ...call, costUsd, at: new Date() });
}

export interface QueueDepth {
  queue: string;
  counts: Record<"waiting" | "active" | "delayed" | "failed", number>;
  /** Seconds since the oldest waiting job was added; 0 when none waits. */
  oldestWaitingAgeSeconds: number;
}

let queueSource: (() => Promise<QueueDepth[]>) | undefined;
let outboxSource: (() => Promise<{ pending: number; oldestAgeSeconds: number }>) | undefined;

/** The process's queues, read on each scrape (the latest registration wins: one per process). */
export function observeQueues(source: () => Promise<QueueDepth[]>): void {
  queueSource = source;
}

export function observeOutbox(source: () => Promise<{ pending: number; oldestAgeSeconds: number }>): void {
  outboxSource = source;
}

/** Work items awaiting a model, by queue and subject type (not failures: counted apart from them). */
export interface AwaitingModelCount {
  queue: string;
  subjectType: string;
  count: number;
}
let awaitingSource: (() => Promise<AwaitingModelCount[]>) | undefined;

/** The database's awaiting-model counts, read on each scrape. */
export function observeAwaitingModel(source: () => Promise<AwaitingModelCount[]>): void {
  awaitingSource = source;
}

/** Reads of the read-only routes by where they ran, when replicas are configured (docs/operating.md, "Read replicas"). */
export const replicaReads = new Counter({
  name: "recall_replica_reads_total",
  help: "Reads of the read-only routes by where they ran (primary or a replica's name) and, on the primary, why (no_replica_up, replicas_behind, not_replayed, replica_failed)",
  labelNames: ["served_by", "reason"] as const,
  registers: [registry],
});

export interface ReplicaGauge {
  name: string;
  health: string;
  lagMs: number | null;
}

let replicaSource: (() => ReplicaGauge[]) | undefined;

/** Makes /metrics report each replica's state and measured lag (the API's monitor, db read-replicas.ts). */
export function observeReplicas(source: () => ReplicaGauge[]): void {
  replicaSource = source;
}

new Gauge({
  name: "recall_replica_up",
  help: "Whether each read replica takes reads (1: up; 0: down, lagging past RECALL_REPLICA_MAX_LAG_MS, or promoted), with its state",
  labelNames: ["replica", "state"] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const r of replicaSource?.() ?? []) this.set({ replica: r.name, state: r.health }, r.health === "up" ? 1 : 0);
  },
});

new Gauge({
  name: "recall_replica_lag_milliseconds",
  help: "How stale each read replica's reads may be, as last measured (0: it had replayed the primary's last position); absent while unknown",
  labelNames: ["replica"] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const r of replicaSource?.() ?? []) if (r.lagMs !== null) this.set({ replica: r.name }, r.lagMs);
  },
});

let bypassSource: (() => ReadonlyMap<string, number>) | undefined;

/** Makes /metrics report how often this process entered each audited bypass of row-level security. */
export function observeTenancyBypasses(source: () => ReadonlyMap<string, number>): void {
  bypassSource = source;
}

new Gauge({
  name: "recall_tenancy_bypasses",
  help: "Times this process entered each audited bypass of row-level security since it started, by reason (docs/security.md)",
  labelNames: ["reason"] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const [reason, n] of bypassSource?.() ?? []) this.set({ reason }, n);
  },
});

const dependencyUp = new Gauge({
  name: "recall_dependency_up",
  help: "Whether the scrape-time read of a dependency worked (1) or failed (0): redis (queue depths), postgres (outbox backlog)",
  labelNames: ["dependency"] as const,
  registers: [registry],
});

/**
 * Reads a scrape-time source; a failure (its dependency is down) leaves that series out and says so
 * in recall_dependency_up, so /metrics still answers during an outage, when it is needed most.
 */
async function readSource<T>(dependency: "redis" | "postgres", source: (() => Promise<T>) | undefined): Promise<T | undefined> {
  if (!source) return undefined;
  try {
    const value = await source();
    dependencyUp.set({ dependency }, 1);
    return value;
  } catch {
    dependencyUp.set({ dependency }, 0);
    return undefined;
  }
}

/** What the last scrape read of the shared state, before its gauges were collected. */
let scraped: { queues?: QueueDepth[]; outbox?: { pending: number; oldestAgeSeconds: number }; awaiting?: AwaitingModelCount[] } = {};

/**
 * The text of /metrics (both the API's and a worker's). Each dependency is read once, before any series is
 * collected, so recall_dependency_up and the gauges read from it have their samples from the first scrape on.
 */
export async function scrapeMetrics(): Promise<string> {
  const [queues, outbox, awaiting] = await Promise.all([
    readSource("redis", queueSource),
    readSource("postgres", outboxSource),
    readSource("postgres", awaitingSource),
  ]);
  scraped = { queues, outbox, awaiting };
  return registry.metrics();
}

/**
 * Zero samples for the series whose labels are known before anything happened (each queue's stage outcomes, the
 * delivery outcomes, the extraction stages), so a dashboard or an alert reads 0, not "no data", on a fresh process.
 */
export function initialiseSeries(queues: readonly string[]): void {
  for (const queue of queues) {
    for (const outcome of ["succeeded", "awaiting_model", "failed", "dead"]) jobsTotal.inc({ queue, outcome, error_class: "" }, 0);
    for (const status of ["succeeded", "awaiting_model", "dead", "cancelled"]) workItemsFinished.inc({ queue, status, error_class: "" }, 0);
    stageDuration.zero({ queue, outcome: "succeeded" });
    lostJobsRequeued.inc({ queue, status: "queued" }, 0);
  }
  for (const outcome of ["delivered", "retrying", "failed"]) {
    webhookDeliveries.inc({ outcome }, 0);
    webhookDeliveryDuration.zero({ outcome });
  }
  for (const stage of ["heuristic", "fast", "strong"]) extractionInputs.inc({ stage }, 0);
}

new Gauge({
  name: "recall_queue_jobs",
  help: "Jobs per queue and state (waiting, active, delayed, failed), read at scrape time",
  labelNames: ["queue", "state"] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const q of scraped.queues ?? []) {
      for (const [state, n] of Object.entries(q.counts)) this.set({ queue: q.queue, state }, n);
    }
  },
});

new Gauge({
  name: "recall_queue_oldest_waiting_age_seconds",
  help: "Age of the oldest job waiting in each queue (0 when none waits), read at scrape time",
  labelNames: ["queue"] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const q of scraped.queues ?? []) this.set({ queue: q.queue }, q.oldestWaitingAgeSeconds);
  },
});

new Gauge({
  name: "recall_work_items_awaiting_model",
  help:
    "Work items awaiting a model (the rules committed what they read; the rest needs a model none is configured for), " +
    "by queue and subject type, read at scrape time. A setting of the deployment, not a failure: never in the failure series",
  labelNames: ["queue", "subject_type"] as const,
  registers: [registry],
  collect() {
    this.reset();
    this.set({ queue: "extract_assertions", subject_type: "turn" }, 0);
    for (const a of scraped.awaiting ?? []) this.set({ queue: a.queue, subject_type: a.subjectType }, a.count);
  },
});

new Gauge({
  name: "recall_outbox_pending_events",
  help: "Committed outbox events not yet relayed to truth maintenance",
  registers: [registry],
  collect() {
    this.reset();
    if (scraped.outbox) this.set(scraped.outbox.pending);
  },
});

new Gauge({
  name: "recall_outbox_lag_seconds",
  help: "Age of the oldest outbox event not yet relayed (0 when none waits): how far truth maintenance trails commits",
  registers: [registry],
  collect() {
    this.reset();
    if (scraped.outbox) this.set(scraped.outbox.oldestAgeSeconds);
  },
});
