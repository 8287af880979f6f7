import express, { type Express } from "express";
import type { ApiDeps } from "./deps";
import { AppError, errorHandler } from "./http/errors";
import { httpTelemetry } from "./http/http-telemetry";
import type { RouteGroup } from "./http/route-definition";
import { mountGroup } from "./http/route-mount";
import { idempotencyGuard } from "./idempotency/idempotency-options";
import { jsonBody, rejectUnstorableText } from "./http/request-guards";
import { contextPackRoutes } from "./routes/context-pack.routes";
import { contextRoutes } from "./routes/contexts.routes";
import { docsRoutes } from "./routes/docs.routes";
import { documentRoutes } from "./routes/documents.routes";
import { entityRoutes } from "./routes/entities.routes";
import { factRoutes } from "./routes/facts.routes";
import { healthRoutes } from "./routes/health.routes";
import { instructionRoutes } from "./routes/instructions.routes";
import { keyRoutes } from "./routes/keys.routes";
import { openApiRoutes } from "./routes/openapi.routes";
import { profileRoutes } from "./routes/profile.routes";
import { queryRoutes } from "./routes/query.routes";
import { retractionRoutes } from "./routes/retractions.routes";
import { usageRoutes } from "./routes/usage.routes";
import { adminErasureRoutes, erasureRoutes } from "./routes/erasures.routes";
import { portabilityRoutes } from "./routes/portability.routes";
import { sessionRoutes } from "./routes/sessions.routes";
import { turnBatchRoutes } from "./routes/turn-batches.routes";
import { stateRoutes } from "./routes/state.routes";
import { reviewRoutes } from "./routes/reviews.routes";
import { webhookRoutes } from "./routes/webhooks.routes";
import { workItemRoutes } from "./routes/work-items.routes";

/** Every route the API serves, grouped by prefix and authentication; the OpenAPI document is generated from these. */
export function routeGroups(deps: ApiDeps): RouteGroup[] {
  const groups: RouteGroup[] = [];
  groups.push(
    { prefix: "", auth: "none", routes: [...healthRoutes(deps), ...openApiRoutes(() => groups), ...docsRoutes()] },
    { prefix: "/api/v1/contexts", auth: "admin", routes: [...contextRoutes(deps), ...keyRoutes(deps), ...adminErasureRoutes(deps)] },
    // Before /api/v1/:contextId, which would otherwise take "admin" for a context id.
    { prefix: "/api/v1/admin", auth: "admin", routes: [...workItemRoutes(deps, "admin"), ...usageRoutes(deps, "admin")] },
    {
      prefix: "/api/v1/:contextId",
      auth: "api_key",
      routes: [
        ...documentRoutes(deps),
        ...sessionRoutes(deps),
        ...turnBatchRoutes(deps),
        ...workItemRoutes(deps),
        ...profileRoutes(deps),
        ...instructionRoutes(deps),
        ...stateRoutes(deps),
        ...queryRoutes(deps),
        ...contextPackRoutes(deps),
        ...factRoutes(deps),
        ...entityRoutes(deps),
        ...retractionRoutes(deps),
        ...usageRoutes(deps),
        ...webhookRoutes(deps),
        ...erasureRoutes(deps),
        ...portabilityRoutes(deps),
        ...reviewRoutes(deps),
      ],
    },
  );
  return groups;
}

export interface AppOptions {
  /** Operator UIs mounted beside the API (e.g. the queue dashboard); not part of the API contract. */
  extras?: [path: string, handler: express.RequestHandler][];
}

/** POST /api/v1/{context}/documents: the one route whose JSON body may exceed REQUEST_BODY_LIMIT_BYTES. */
const DOCUMENTS_PATH = /^\/api\/v1\/[^/]+\/documents\/?$/;

export function createApp(deps: ApiDeps, options: AppOptions = {}): Express {
  const app = express();
  app.disable("x-powered-by");
  app.use(deps.drain.guard);
  // qs parsing, so scope[org]=acme&scope[user]=alice arrives as { scope: { org, user } }.
  app.set("query parser", "extended");
  // Every body is held to REQUEST_BODY_LIMIT_BYTES but a document's: its JSON text may be as large as
  // RECALL_DOCUMENT_MAX_BYTES, plus its JSON escaping.
  const documentLimit = Math.max(deps.config.REQUEST_BODY_LIMIT_BYTES, Math.ceil(deps.config.RECALL_DOCUMENT_MAX_BYTES * 1.1) + 64 * 1024);
  const documentBody = jsonBody(documentLimit);
  const otherBody = jsonBody(deps.config.REQUEST_BODY_LIMIT_BYTES);
  app.use((req, res, next) => (DOCUMENTS_PATH.test(req.path) ? documentBody : otherBody)(req, res, next));
  app.use(rejectUnstorableText);
  // One span per request, active for the handlers, so stored rows carry its trace id.
  app.use(httpTelemetry());
  const mount = { checkResponses: deps.config.NODE_ENV === "test", idempotency: idempotencyGuard(deps) };
  for (const [path, handler] of options.extras ?? []) app.use(path, handler);
  for (const group of routeGroups(deps)) app.use(group.prefix || "/", mountGroup(deps, group, mount));
  app.use((req) => {
    throw new AppError(404, "not_found", `no route for ${req.method} ${req.path}`);
  });
  app.use(errorHandler(deps.logger));
  return app;
}
