// Tracing: a tracer provider is always registered so every request and job has a real
// trace id (returned to callers as trace_id); spans are exported only when an OTLP
// endpoint is configured. Trace context travels inside job payloads (W3C traceparent).
// The SDK, the exporter and the instrumentations are loaded by initTracing, not with this module: everything that
// imports this package for its spans (every Jest file that starts a harness, a quarter of a second of CPU each
// under Jest) would otherwise load them, and only the API's and the worker's entry points set tracing up.
import { randomBytes } from "node:crypto";
import { context, propagation, SpanKind, SpanStatusCode, trace, type Span } from "@opentelemetry/api";
import type { SpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";

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
  const { NodeTracerProvider } = require("@opentelemetry/sdk-trace-node") as typeof import("@opentelemetry/sdk-trace-node");
  const { resourceFromAttributes } = require("@opentelemetry/resources") as typeof import("@opentelemetry/resources");
  const { ATTR_SERVICE_NAME } = require("@opentelemetry/semantic-conventions") as typeof import("@opentelemetry/semantic-conventions");
  const spanProcessors: SpanProcessor[] = [...(options.spanProcessors ?? [])];
  if (otlpEndpoint) {
    const { BatchSpanProcessor } = require("@opentelemetry/sdk-trace-base") as typeof import("@opentelemetry/sdk-trace-base");
    const { OTLPTraceExporter } =
      require("@opentelemetry/exporter-trace-otlp-http") as typeof import("@opentelemetry/exporter-trace-otlp-http");
    spanProcessors.push(new BatchSpanProcessor(new OTLPTraceExporter({ url: `${otlpEndpoint.replace(/\/$/, "")}/v1/traces` })));
  }
  provider = new NodeTracerProvider({ resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }), spanProcessors });
  provider.register();
  if (options.instrument ?? otlpEndpoint !== undefined) {
    const { registerInstrumentations } = require("@opentelemetry/instrumentation") as typeof import("@opentelemetry/instrumentation");
    unregister = registerInstrumentations({ tracerProvider: provider, instrumentations: instrumentations() });
  }
}

/**
 * Well-kept instrumentations: incoming and outgoing HTTP, Express layers, SQL and Redis commands inside a traced
 * operation. Routes are named as the OpenAPI document and the metrics name them (`/api/v1/{contextId}/profile`),
 * not in Express's syntax: the request span takes the template the router recorded (res.locals.routeTemplate)
 * once the response is done, and Express's layer spans have their `:param`s rewritten.
 */
function instrumentations() {
  const { ExpressInstrumentation, ExpressLayerType } =
    require("@opentelemetry/instrumentation-express") as typeof import("@opentelemetry/instrumentation-express");
  const { HttpInstrumentation } = require("@opentelemetry/instrumentation-http") as typeof import("@opentelemetry/instrumentation-http");
  const { IORedisInstrumentation } =
    require("@opentelemetry/instrumentation-ioredis") as typeof import("@opentelemetry/instrumentation-ioredis");
  const { PgInstrumentation } = require("@opentelemetry/instrumentation-pg") as typeof import("@opentelemetry/instrumentation-pg");
  const { ATTR_HTTP_ROUTE } = require("@opentelemetry/semantic-conventions") as typeof import("@opentelemetry/semantic-conventions");
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
