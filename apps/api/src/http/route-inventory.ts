// What Express will actually route, read from its router stack, so a test can prove
// every registered route is a declared one (and therefore in the OpenAPI document).
// Express keeps no public API for this; the fields read here (router.stack,
// layer.rawPath, layer.route) are those of Express 5's `router` package.
import type { Express } from "express";
import { DECLARED_ROUTE } from "./route-mount";
import { openApiPath } from "./route-definition";

export interface RegisteredRoute {
  method: string;
  /** OpenAPI spelling: /api/v1/{contextId}/profile */
  path: string;
  declared: boolean;
}

interface Layer {
  rawPath?: string;
  route?: { path: string; methods: Record<string, boolean>; stack: { handle: object }[] };
  handle?: { stack?: Layer[] };
}

export function registeredRoutes(app: Express): RegisteredRoute[] {
  const root: unknown = Reflect.get(app, "router");
  if (!isLayerList(root)) throw new Error("Express keeps no router stack where Express 5 does; route-inventory.ts needs updating");
  return walk(root.stack, "");
}

function isLayerList(router: unknown): router is { stack: Layer[] } {
  // Express's router is a function with properties.
  return (
    (typeof router === "object" || typeof router === "function") && router !== null && "stack" in router && Array.isArray(router.stack)
  );
}

function walk(stack: Layer[], prefix: string): RegisteredRoute[] {
  return stack.flatMap((layer) => {
    if (layer.route) return routesOf(layer.route, prefix);
    if (layer.handle?.stack) return walk(layer.handle.stack, join(prefix, layer.rawPath ?? ""));
    return [];
  });
}

function routesOf(route: NonNullable<Layer["route"]>, prefix: string): RegisteredRoute[] {
  const declared = route.stack.some((s) => DECLARED_ROUTE in s.handle);
  return Object.keys(route.methods).map((method) => ({ method, path: openApiPath("", join(prefix, route.path)), declared }));
}

function join(prefix: string, path: string): string {
  return `${prefix.replace(/\/$/, "")}${path === "/" ? "" : path}`;
}
