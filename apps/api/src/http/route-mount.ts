// Registers declared routes on Express. Handlers are marked, so a test can find any
// route that was registered some other way (and so has no schema in the OpenAPI document).
import { Router, type Request, type RequestHandler, type Response } from "express";
import { withoutTenant, writePosition } from "@recall/db";
import { requireAdmin, requireContextKey } from "./auth";
import type { ApiDeps } from "../deps";
import type { IdempotencyGuard } from "../idempotency/idempotency-guard";
import { CONSISTENCY_HEADER, needsWritePosition } from "./consistency";
import { requireJsonBody } from "./request-guards";
import { openApiPath, type Reply, type RouteDefinition, type RouteGroup } from "./route-definition";

export const DECLARED_ROUTE = Symbol.for("recall.declared-route");

export interface MountOptions {
  /** Check every answer against its declared response schema (tests): an undeclared status or shape is a 500. */
  checkResponses: boolean;
  /** Applied to routes declared `idempotent`. */
  idempotency: IdempotencyGuard;
}

export function mountGroup(deps: ApiDeps, group: RouteGroup, options: MountOptions): Router {
  const router = Router({ mergeParams: true });
  if (group.auth === "api_key") router.use(requireContextKey(deps));
  const guard: RequestHandler[] = group.auth === "admin" ? [requireAdmin(deps)] : group.auth === "none" ? [serveNoContext] : [];
  for (const route of group.routes) {
    // A route that reads its own body (uploads in several media types) takes more than JSON.
    const bodyGuard: RequestHandler[] = route.requestBody ? [] : [requireJsonBody];
    router[route.method](
      route.path,
      routeTemplate(openApiPath(group.prefix, route.path)),
      ...guard,
      ...bodyGuard,
      handlerFor(deps, group, route, options),
    );
  }
  return router;
}

/** Health, readiness, metrics and the API's own documents serve no context: they read across contexts (counts). */
const serveNoContext: RequestHandler = (_req, _res, next) => withoutTenant("health", next);

/**
 * Names the request by its route template (/api/v1/{contextId}/work-items/{workItemId}), never the
 * raw path with ids: the HTTP span and the duration metric read it when the response finishes.
 */
function routeTemplate(template: string): RequestHandler {
  return (_req, res, next) => {
    res.locals["routeTemplate"] = template;
    next();
  };
}

function handlerFor(deps: ApiDeps, group: RouteGroup, route: RouteDefinition, options: MountOptions): RequestHandler {
  const handler: RequestHandler = async (req, res) => {
    const reply = route.idempotent
      ? await options.idempotency.run(req, res, idempotencyScope(group, req), () => route.run(req, res), route.idempotencyMaterial)
      : await route.run(req, res);
    if (options.checkResponses) assertDeclared(route, reply);
    if (!res.headersSent && needsWritePosition(deps, req, res, reply.status))
      res.setHeader(CONSISTENCY_HEADER, await writePosition(deps.db));
    send(res, reply);
  };
  return Object.assign(handler, { [DECLARED_ROUTE]: route });
}

/** Keys are per tenant: the context of the path, or the admin's own space for admin routes. */
function idempotencyScope(group: RouteGroup, req: Request): string {
  return group.auth === "api_key" ? `context:${String(req.params.contextId)}` : group.auth;
}

function send(res: Response, reply: Reply): void {
  if (reply.streamed) return;
  res.status(reply.status);
  if (reply.body === undefined) return void res.end();
  if (reply.contentType) return void res.type(reply.contentType).send(reply.body);
  res.json(reply.body);
}

/** The body as the client will see it (dates as strings), checked against the declared schema. */
function assertDeclared(route: RouteDefinition, reply: Reply): void {
  const where = `${route.method.toUpperCase()} ${route.path} answered ${reply.status}`;
  const spec = route.responses[reply.status];
  if (!spec) throw new Error(`${where}, a status its definition does not declare`);
  if (!spec.schema || reply.streamed) return;
  const wire = typeof reply.body === "string" ? reply.body : JSON.parse(JSON.stringify(reply.body ?? null));
  const parsed = spec.schema.safeParse(wire);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`${where} with a body that does not match its schema: ${issues}`);
  }
}
