import { Counter, Histogram, Registry, collectDefaultMetrics } from "prom-client";

export const registry = new Registry();
collectDefaultMetrics({ register: registry });

export const jobsTotal = new Counter({
  name: "recall_jobs_total",
  help: "Job attempts by queue and outcome",
  labelNames: ["queue", "outcome", "error_class"] as const,
  registers: [registry],
});

export const jobDuration = new Histogram({
  name: "recall_job_duration_seconds",
  help: "Job attempt wall time by queue",
  labelNames: ["queue"] as const,
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
  registers: [registry],
});

export const httpDuration = new Histogram({
  name: "recall_http_request_duration_seconds",
  help: "HTTP request duration by route and status",
  labelNames: ["method", "route", "status"] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

export const modelTokens = new Counter({
  name: "recall_model_tokens_total",
  help: "Model tokens used, by stage and direction",
  labelNames: ["stage", "direction"] as const,
  registers: [registry],
});
