import express, { type Express } from "express";
import type { ApiDeps } from "./deps";
import { AppError, errorHandler } from "./http/errors";
import { httpTelemetry } from "./http/http-telemetry";
import type { RouteGroup } from "./http/route-definition";
import { mountGroup } from "./http/route-mount";
import { idempotencyGuard } from "./idempotency/idempotency-options";
import { boundedBody, rejectUnstorableText, type BodyCapOf } from "./http/request-guards";
import { contextPackRoutes } from "./routes/context-pack.routes";
import { contextRoutes } from "./routes/contexts.routes";
import { docsRoutes } from "./routes/docs.routes";
import { documentRoutes } from "./routes/documents.routes";
import { documentBodyLimit } from "./routes/document-upload";
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

/** POST /api/v1/{context}/documents: the one route whose body may exceed REQUEST_BODY_LIMIT_BYTES. */
const DOCUMENTS_PATH = /^\/api\/v1\/[^/]+\/documents\/?$/;
/** POST /api/v1/{context}/import reads its NDJSON body itself, as a stream bounded by RECALL_IMPORT_MAX_BYTES (import-body.ts). */
const IMPORT_PATH = /^\/api\/v1\/[^/]+\/import\/?$/;

/** Every body is held to REQUEST_BODY_LIMIT_BYTES but a document's, whose text may be as large as RECALL_DOCUMENT_MAX_BYTES. */
function bodyCapOf(config: ApiDeps["config"]): BodyCapOf {
  const requests = { bytes: config.REQUEST_BODY_LIMIT_BYTES, setting: "REQUEST_BODY_LIMIT_BYTES" };
  const documents = {
    bytes: documentBodyLimit(config.RECALL_DOCUMENT_MAX_BYTES, config.REQUEST_BODY_LIMIT_BYTES),
    setting: "RECALL_DOCUMENT_MAX_BYTES plus framing",
  };
  return (req) => (IMPORT_PATH.test(req.path) ? undefined : DOCUMENTS_PATH.test(req.path) ? documents : requests);
}

export function createApp(deps: ApiDeps, options: AppOptions = {}): Express {
  const app = express();
  app.disable("x-powered-by");
  app.use(deps.drain.guard);
  // qs parsing, so scope[org]=acme&scope[user]=alice arrives as { scope: { org, user } }.
  app.set("query parser", "extended");
  // Before routing and authentication: a body over its cap is refused before it is read.
  app.use(boundedBody(bodyCapOf(deps.config)));
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
