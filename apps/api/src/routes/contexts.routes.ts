// Admin API (Authorization: Bearer ADMIN_API_KEY): contexts (tenants). Their keys: keys.routes.ts.
import { z } from "zod";
import { ContextConfig } from "@recall/contracts";
import type { ApiDeps } from "../deps";
import { ApiKeyService } from "../services/api-key.service";
import { defineRoute, type RouteDefinition } from "../http/route-definition";

export const CreateContextBody = z.object({
  name: z.string().trim().min(1).max(200),
  config: ContextConfig.optional().describe("the context's rules and defaults (docs/scope.md for require_scope)"),
});

export function contextRoutes(deps: ApiDeps): RouteDefinition[] {
  const keys = new ApiKeyService(deps);
  return [
    defineRoute({
      method: "post",
      idempotent: true,
      path: "/",
      summary: "Create a context (tenant) and its first API key",
      description:
        "A context is a tenant: its memory, sessions, documents and keys are invisible to every other context. The answer holds the context's first API key, shown this once (only a hash is kept). `config` sets the context's rules, such as `require_scope: true` (every write must carry a scope).",
      tags: ["admin"],
      body: CreateContextBody,
      responses: {
        201: { description: "The context and its key", schema: z.object({ context_id: z.uuid(), api_key: z.string(), name: z.string() }) },
      },
      handle: async ({ body }) => {
        const { context, apiKey } = await keys.createContext(body.name, body.config);
        return { status: 201, body: { context_id: context.id, api_key: apiKey, name: context.name } };
      },
    }),
  ];
}
