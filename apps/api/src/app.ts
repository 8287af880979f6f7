import express, { type Express } from "express";
import { trace } from "@opentelemetry/api";
import { httpDuration } from "@recall/telemetry";
import { requireContextKey } from "./auth";
import type { ApiDeps } from "./deps";
import { AppError, errorHandler } from "./errors";
import { contextRoutes } from "./routes/contexts.routes";
import { documentRoutes } from "./routes/documents.routes";
import { healthRoutes } from "./routes/health.routes";
import { sessionRoutes } from "./routes/sessions.routes";
import { workItemRoutes } from "./routes/work-items.routes";

export function createApp(deps: ApiDeps): Express {
  const app = express();
  app.disable("x-powered-by");
  app.use(express.json({ limit: "6mb" }));
  // One span per request, active for the handlers, so stored rows carry its trace id.
  app.use((req, res, next) => {
    trace.getTracer("recall").startActiveSpan(`${req.method} ${req.path}`, (span) => {
      res.on("finish", () => span.end());
      next();
    });
  });
  app.use((req, res, next) => {
    const stop = httpDuration.startTimer({ method: req.method });
    res.on("finish", () => stop({ route: req.route?.path ?? "unmatched", status: String(res.statusCode) }));
    next();
  });
  app.use(healthRoutes(deps));
  app.use(contextRoutes(deps));
  const scoped = express.Router({ mergeParams: true });
  scoped.use(requireContextKey(deps));
  scoped.use(documentRoutes(deps));
  scoped.use(sessionRoutes(deps));
  scoped.use(workItemRoutes(deps));
  app.use("/api/v1/:contextId", scoped);
  app.use((req) => {
    throw new AppError(404, "not_found", `no route for ${req.method} ${req.path}`);
  });
  app.use(errorHandler(deps.logger));
  return app;
}
