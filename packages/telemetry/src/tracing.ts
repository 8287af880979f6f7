// Tracing: a tracer provider is always registered so every request and job has a real
// trace id (returned to callers as trace_id); spans are exported only when an OTLP
// endpoint is configured. Trace context travels inside job payloads (W3C traceparent).
import { randomBytes } from "node:crypto";
import { context, propagation, SpanKind, SpanStatusCode, trace, type Span } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { registerInstrumentations } from "@opentelemetry/instrumentation";
import { ExpressInstrumentation, ExpressLayerType } from "@opentelemetry/instrumentation-express";
import { HttpInstrumentation } from "@opentelemetry/instrumentation-http";
import { IORedisInstrumentation } from "@opentelemetry/instrumentation-ioredis";
import { PgInstrumentation } from "@opentelemetry/instrumentation-pg";
import { BatchSpanProcessor, type SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";

let provider: NodeTracerProvider | undefined;
let unregister: (() => void) | undefined;

export interface TracingOptions {
  /** More span processors, e.g. a test's in-memory exporter. */
  spanProcessors?: SpanProcessor[];
  /**
   * Patch http, express, pg and ioredis with their OpenTelemetry instrumentations (default: when spans
   * are exported, i.e. an OTLP endpoint is set). They hook `require`, so call initTracing before those
   * modules are first loaded (see the tracing-preload files of apps/api and apps/worker). Without an
   * exporter their spans go nowhere, and the hook costs every process about two seconds of CPU at
   * start-up (measured on a worker), which a restarted worker should not pay.
   */
  instrument?: boolean;
}

export function initTracing(serviceName: string, otlpEndpoint?: string, options: TracingOptions = {}): void {
  if (provider) return;
  const spanProcessors: SpanProcessor[] = [...(options.spanProcessors ?? [])];
  if (otlpEndpoint) {
    spanProcessors.push(new BatchSpanProcessor(new OTLPTraceExporter({ url: `${otlpEndpoint.replace(/\/$/, "")}/v1/traces` })));
  }
  provider = new NodeTracerProvider({ resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }), spanProcessors });
  provider.register();
  if (options.instrument ?? otlpEndpoint !== undefined)
    unregister = registerInstrumentations({ tracerProvider: provider, instrumentations: instrumentations() });
}

/** Well-kept instrumentations: incoming and outgoing HTTP, Express layers, SQL and Redis commands inside a traced operation. */
function instrumentations() {
  return [
    new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => /^\/(metrics|healthz|readyz)/.test(req.url ?? "") }),
    new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
    new PgInstrumentation({ requireParentSpan: true }),
    new IORedisInstrumentation({ requireParentSpan: true }),
  ];
}

export async function shutdownTracing(): Promise<void> {
  unregister?.();
  unregister = undefined;
  await provider?.shutdown();
  provider = undefined;
  trace.disable();
  propagation.disable();
  context.disable();
}

const tracer = () => trace.getTracer("recall");

/** Runs fn inside a new active span; records the error and rethrows. */
export async function withSpan<T>(
  name: string,
  attributes: Record<string, string | number>,
  fn: (span: Span) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  return tracer().startActiveSpan(name, { attributes, kind }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      throw err;
    } finally {
      span.end();
    }
  });
}

export function currentTraceId(): string | undefined {
  const id = trace.getActiveSpan()?.spanContext().traceId;
  return id && !/^0+$/.test(id) ? id : undefined;
}

/** A W3C trace id, for inputs that arrive outside an active span. */
export function newTraceId(): string {
  return randomBytes(16).toString("hex");
}

export type TraceCarrier = Record<string, string>;

export function injectTraceContext(): TraceCarrier {
  const carrier: TraceCarrier = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

export function withTraceContext<T>(carrier: TraceCarrier | undefined, fn: () => T): T {
  return context.with(propagation.extract(context.active(), carrier ?? {}), fn);
}

/** traceparent carrier for a known trace id, so later stages join the trace that ingest started. */
export function carrierForTraceId(traceId: string): TraceCarrier {
  const spanId = Array.from({ length: 16 }, () => "0123456789abcdef"[Math.floor(Math.random() * 16)]).join("");
  return { traceparent: `00-${traceId}-${spanId}-01` };
}
export { SpanKind } from "@opentelemetry/api";
