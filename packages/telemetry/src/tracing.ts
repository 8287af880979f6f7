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
import { ATTR_HTTP_ROUTE, ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";

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

/**
 * Well-kept instrumentations: incoming and outgoing HTTP, Express layers, SQL and Redis commands inside a traced
 * operation. Routes are named as the OpenAPI document and the metrics name them (`/api/v1/{contextId}/profile`),
 * not in Express's syntax: the request span takes the template the router recorded (res.locals.routeTemplate)
 * once the response is done, and Express's layer spans have their `:param`s rewritten.
 */
function instrumentations() {
  return [
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (req) => /^\/(metrics|healthz|readyz)/.test(req.url ?? ""),
      applyCustomAttributesOnSpan: (span, request, response) => {
        const template = routeTemplateOf(response);
        if (!template || !("method" in request)) return;
        span.updateName(`${request.method ?? "GET"} ${template}`);
        span.setAttribute(ATTR_HTTP_ROUTE, template);
      },
    }),
    new ExpressInstrumentation({
      ignoreLayersType: [ExpressLayerType.MIDDLEWARE],
      spanNameHook: (_info, defaultName) => bracedParams(defaultName),
      requestHook: (span, info) => {
        if (info.route) span.setAttribute(ATTR_HTTP_ROUTE, bracedParams(info.route));
      },
    }),
    new PgInstrumentation({ requireParentSpan: true }),
    new IORedisInstrumentation({ requireParentSpan: true }),
  ];
}

/** `/api/v1/:contextId/profile` → `/api/v1/{contextId}/profile`. */
export function bracedParams(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
}

/** The route template the API's router recorded on an Express response (http/route-mount.ts), if any. */
function routeTemplateOf(response: object): string | undefined {
  const locals: unknown = Reflect.get(response, "locals");
  const template = typeof locals === "object" && locals !== null ? Reflect.get(locals, "routeTemplate") : undefined;
  return typeof template === "string" ? template : undefined;
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
      recordError(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/**
 * An error on a span says what kind it is, never what it says: a message may quote the input (a turn's
 * text, a document's words), and spans leave the service with the trace export. So the status and the
 * exception event carry the error's name, its error class and HTTP status where it has them, and the
 * stack frames without the message line; the message itself stays in the work item and the logs.
 */
export function recordError(span: Span, err: unknown): void {
  const description = errorDescription(err);
  const stack = err instanceof Error && err.stack ? err.stack.split("\n").slice(1).join("\n") : undefined;
  span.recordException({ name: err instanceof Error ? err.name : "Error", message: description, ...(stack ? { stack } : {}) });
  span.setStatus({ code: SpanStatusCode.ERROR, message: description });
}

/**
 * `UnrecoverableError caused by ProviderError (class provider, kind auth, status 401)`: names and the fields that
 * describe a failure without its input, along its chain of causes.
 */
export function errorDescription(err: unknown, depth = 0): string {
  if (!(err instanceof Error)) return "Error";
  const fields = err as { errorClass?: unknown; status?: unknown; kind?: unknown };
  const parts = [
    typeof fields.errorClass === "string" ? `class ${fields.errorClass}` : undefined,
    typeof fields.kind === "string" ? `kind ${fields.kind}` : undefined,
    typeof fields.status === "number" ? `status ${fields.status}` : undefined,
  ].filter((p): p is string => p !== undefined);
  const inner = err.cause instanceof Error && depth < 3 ? ` caused by ${errorDescription(err.cause, depth + 1)}` : "";
  return `${err.name}${parts.length > 0 ? ` (${parts.join(", ")})` : ""}${inner}`;
}

/** Ids on the active span (a request's context, the turn or document it stored), for finding a trace by what it handled. */
export function annotateActiveSpan(attributes: Record<string, string | number>): void {
  trace.getActiveSpan()?.setAttributes(attributes);
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
export { SpanKind, type Span } from "@opentelemetry/api";
