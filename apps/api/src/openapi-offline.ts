// The OpenAPI document without a server, a database or Redis: what the client generator
// (infra/client-types.ts) reads. Route declarations use their deps only inside handlers, so a
// stand-in that refuses every use yields the same document /openapi.json serves, and a
// declaration that starts reading deps eagerly fails loudly here instead of generating a lie.
import { routeGroups } from "./app";
import type { ApiDeps } from "./deps";
import { buildOpenApiDocument } from "./openapi-document";
import { API_VERSION } from "./routes/openapi.routes";

export function offlineOpenApiDocument(): Record<string, unknown> {
  const refuse = new Proxy({} as ApiDeps, {
    get(_target, name) {
      throw new Error(`a route declaration read deps.${String(name)} outside its handler; the offline OpenAPI document cannot be built`);
    },
  });
  return buildOpenApiDocument(routeGroups(refuse), API_VERSION);
}
