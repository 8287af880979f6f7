import { z } from "zod";
import { registry, scrapeMetrics } from "@recall/telemetry";
import type { ApiDeps } from "../deps";
import { defineRoute, type RouteDefinition } from "../http/route-definition";
import { checkReadiness } from "../services/readiness";

const Check = z.object({ name: z.string(), ok: z.boolean(), error: z.string().optional(), detail: z.string().optional() });
const Readiness = z.object({ status: z.enum(["ready", "not_ready"]), checks: z.array(Check) });

export function healthRoutes(deps: ApiDeps): RouteDefinition[] {
  return [liveness(), readiness(deps), metrics()];
}

function liveness(): RouteDefinition {
  return defineRoute({
    method: "get",
    path: "/healthz",
    summary: "The process is up",
    description:
      "Liveness: answers 200 while the process runs, without touching Postgres or Redis. Use /readyz to decide whether to send traffic.",
    tags: ["health"],
    responses: { 200: { description: "Up", schema: z.object({ status: z.literal("ok") }) } },
    handle: async () => ({ status: 200, body: { status: "ok" } }),
  });
}

function readiness(deps: ApiDeps): RouteDefinition {
  return defineRoute({
    method: "get",
    path: "/readyz",
    summary: "Taking requests (not shutting down), and Postgres, Redis and migrations are ready",
    description:
      "Readiness: 200 when every check passes, 503 with the failing checks named otherwise (also while the process drains on shutdown). The workers check says whether every queue has a live worker process.",
    tags: ["health"],
    responses: { 200: { description: "Ready", schema: Readiness }, 503: { description: "Not ready; see checks", schema: Readiness } },
    handle: async () => {
      const { ready, checks } = await checkReadiness(deps);
      return { status: ready ? 200 : 503, body: { status: ready ? "ready" : "not_ready", checks } };
    },
  });
}

function metrics(): RouteDefinition {
  return defineRoute({
    method: "get",
    path: "/metrics",
    summary: "Prometheus metrics",
    description:
      "Request durations by route template, queue depths, job outcomes and stage durations, model calls, tokens and cost, in the Prometheus text exposition format. Unauthenticated: expose it to your scraper only.",
    tags: ["health"],
    responses: { 200: { description: "Prometheus text exposition format", schema: z.string(), contentType: "text/plain" } },
    handle: async () => ({ status: 200, body: await scrapeMetrics(), contentType: registry.contentType }),
  });
}
