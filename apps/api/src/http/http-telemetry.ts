// One SERVER span and one duration sample per request, named by the route template (see
// route-mount.ts), with the HTTP semantic-convention attributes and the status recorded. When
// @opentelemetry/instrumentation-http already opened the request's span, that span is named
// and annotated instead of opening a second one.
import { SpanKind, SpanStatusCode, trace, type Span } from "@opentelemetry/api";
import type { RequestHandler, Response } from "express";
import { httpDuration } from "@recall/telemetry";

/** A context's routes: /api/v1/{contextId}/… with a UUID (admin and health routes have none). */
const CONTEXT_IN_PATH = /^\/api\/v1\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:[/?]|$)/i;

const templateOf = (res: Response): string => (res.locals["routeTemplate"] as string | undefined) ?? "unmatched";

export function httpTelemetry(): RequestHandler {
  return (req, res, next) => {
    const stop = httpDuration.startTimer({ method: req.method });
    const active = trace.getActiveSpan();
    // The SDK's span keeps its kind; the API's Span type does not show it.
    const fromInstrumentation = active?.isRecording() && "kind" in active && active.kind === SpanKind.SERVER;
    const finish = (span: Span) => {
      const route = templateOf(res);
      span.updateName(`${req.method} ${route}`);
      span.setAttributes({ "http.route": route, "http.request.method": req.method, "http.response.status_code": res.statusCode });
      const contextId = CONTEXT_IN_PATH.exec(req.originalUrl)?.[1];
      if (contextId) span.setAttribute("recall.context_id", contextId);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: `HTTP ${res.statusCode}` });
      stop({ route, status: String(res.statusCode) });
    };
    if (fromInstrumentation && active) {
      res.on("finish", () => finish(active));
      return next();
    }
    trace.getTracer("recall").startActiveSpan(`${req.method}`, { kind: SpanKind.SERVER, attributes: { "url.path": req.path } }, (span) => {
      res.on("finish", () => {
        finish(span);
        span.end();
      });
      next();
    });
  };
}
