// What other packages use of @recall/telemetry, and only that: everything else in it is internal.
export { type Logger, type LoggerOptions, createLogger } from "./logger";
export {
  type LedgerEntry,
  type QueueDepth,
  extractionInputs,
  httpDuration,
  initialiseSeries,
  jobsTotal,
  lostJobsRequeued,
  observeOutbox,
  observeQueues,
  observeReplicas,
  observeTenancyBypasses,
  recordModelCall,
  registry,
  replicaReads,
  scrapeMetrics,
  setModelPrices,
  stageDuration,
  webhookDeliveries,
  webhookDeliveryDuration,
  webhooksDisabled,
  withModelCallLedger,
  workItemsFinished,
} from "./metrics";
export { scrubSecrets } from "./secret-scrubber";
export { SHUTDOWN_GRACE_MS, exitAfter, settlesWithin } from "./shutdown";
export {
  type Span,
  SpanKind,
  type TraceCarrier,
  annotateActiveSpan,
  carrierForTraceId,
  currentTraceId,
  initTracing,
  injectTraceContext,
  newTraceId,
  recordError,
  shutdownTracing,
  withSpan,
  withTraceContext,
} from "./tracing";
