// What other packages use of @recall/telemetry, and only that: everything else in it is internal.
export { type Logger, type LoggerOptions, createLogger } from "./logger";
export {
  type QueueDepth,
  extractionInputs,
  httpDuration,
  jobsTotal,
  lostJobsRequeued,
  observeOutbox,
  observeQueues,
  recordModelCall,
  type LedgerEntry,
  withModelCallLedger,
  registry,
  setModelPrices,
  stageDuration,
  workItemsFinished,
} from "./metrics";
export { scrubSecrets } from "./secret-scrubber";
export { SHUTDOWN_GRACE_MS, exitAfter, settlesWithin } from "./shutdown";
export {
  SpanKind,
  annotateActiveSpan,
  type Span,
  type TraceCarrier,
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
