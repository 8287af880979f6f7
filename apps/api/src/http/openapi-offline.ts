// The OpenAPI document without a server, a database or Redis: what the client generator
// (infra/client-types.ts) reads. Route groups are built with the default configuration and
// stand-ins for their connections that refuse every use: building services is fine, but a
// declaration that queried or enqueued while being declared fails loudly here instead of
// generating from a half-built app. openapi-offline.test.ts proves the result is what
// GET /openapi.json serves.
import { configWith } from "@recall/config";
import { routeGroups } from "../app";
import type { ApiDeps } from "../deps";
import { API_VERSION } from "../routes/openapi.routes";
import { buildOpenApiDocument } from "./openapi-document";

export function offlineOpenApiDocument(): Record<string, unknown> {
  const deps: ApiDeps = {
    config: configWith({}),
    db: refuse("db"),
    queues: refuse("queues"),
    redis: refuse("redis"),
    logger: refuse("logger"),
    turns: refuse("turns"),
    turnService: refuse("turnService"),
    workItems: refuse("workItems"),
    reviews: refuse("reviews"),
    portability: refuse("portability"),
    erasures: refuse("erasures"),
    drain: refuse("drain"),
  };
  return buildOpenApiDocument(routeGroups(deps), API_VERSION);
}

function refuse<T>(name: string): T {
  return new Proxy({} as object, {
    get(_target, property) {
      throw new Error(
        `a route declaration used deps.${name}.${String(property)} while being declared; the offline OpenAPI document cannot be built`,
      );
    },
  }) as T;
}
