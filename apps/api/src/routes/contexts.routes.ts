// Admin API (Authorization: Bearer ADMIN_API_KEY): contexts (tenants). Their keys: keys.routes.ts.
import { z } from "zod";
import { ContextConfig } from "@recall/contracts";

const contextConfigView = (stored: unknown): Record<string, unknown> =>
  stored && typeof stored === "object" && !Array.isArray(stored) ? Object.fromEntries(Object.entries(stored)) : {};
import type { ApiDeps } from "../deps";
import { ApiKeyService } from "../services/api-key.service";
import { defineRoute, type RouteDefinition } from "../http/route-definition";

export const CreateContextBody = z.object({
  name: z.string().trim().min(1).max(200),
  config: ContextConfig.optional().describe("the context's rules and defaults (docs/scope.md for require_scope)"),
});

/** A change of config: each key the schema knows, checked as at creation; null removes a key. */
const ConfigChange = z.looseObject(
  Object.fromEntries(Object.entries(ContextConfig.shape).map(([key, schema]) => [key, schema.unwrap().nullable().optional()])),
);

const ConfigBody = ConfigChange.refine((b) => Object.keys(b).length > 0, { message: "name at least one key to set or remove" }).refine(
  (b) => Object.keys(b).length <= 64,
  { message: "at most 64 keys" },
);

const ContextView = z.object({ context_id: z.uuid(), name: z.string(), config: z.record(z.string(), z.unknown()) });

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
    defineRoute({
      method: "post",
      idempotent: true,
      path: "/:contextId/config",
      summary: "Change keys of a context's config: set them, or remove them with null",
      description:
        "Each key given is checked as at creation (400 naming `body.<key>`); keys not given stay as they are; two changes at once both land. A new rule applies to what is committed after it: turning `review` on holds the candidates of inputs committed from now on, and turning it off commits new inputs at once but leaves held reviews for a decision. 404 when the context does not exist.",
      tags: ["admin"],
      params: z.object({ contextId: z.uuid("must be a context id") }),
      body: ConfigBody,
      bodyExample: { review: { categories: ["identity"] }, require_scope: null },
      responses: { 200: { description: "The context as it is now", schema: ContextView } },
      handle: async ({ params, body }) => {
        const context = await keys.updateConfig(params.contextId, body);
        return { status: 200, body: { context_id: context.id, name: context.name, config: contextConfigView(context.config) } };
      },
    }),
  ];
}
