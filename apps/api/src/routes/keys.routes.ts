// Admin API (Authorization: Bearer ADMIN_API_KEY): a context's API keys. A key is shown
// once, when issued; only its prefix and a scrypt hash are stored. Every lookup is by
// context and key id together (services/api-key.service.ts), so a key id of another context is not found.
import { z } from "zod";
import type { ApiDeps } from "../deps";
import { Problem } from "../http/errors";
import { NextCursor, cursorParam, limitParam, pageByCreation } from "../http/pagination";
import { defineRoute, type RouteDefinition } from "../http/route-definition";
import { ApiKeyService, type IssuedKeyRow } from "../services/api-key.service";
import { Timestamp } from "../views/work-item-view";

const ContextParams = z.object({ contextId: z.uuid("must be a context id") });
const KeyParams = ContextParams.extend({ keyId: z.uuid("must be a key id") });
const IssuedKey = z.object({ key_id: z.uuid(), prefix: z.string(), api_key: z.string().describe("shown once; store it now") });
const KeyView = z.object({
  key_id: z.uuid(),
  prefix: z.string(),
  active: z.boolean(),
  created_at: Timestamp,
  last_used_at: Timestamp.nullable(),
  revoked_at: Timestamp.nullable(),
});

export function keyRoutes(deps: ApiDeps): RouteDefinition[] {
  const keys = new ApiKeyService(deps);
  return [listKeys(keys), issueKey(keys), rotateKey(keys), revokeKey(keys)];
}

const conflict = { description: "The key is revoked", schema: Problem, contentType: "application/problem+json" };

function listKeys(keys: ApiKeyService): RouteDefinition {
  return defineRoute({
    method: "get",
    path: "/:contextId/keys",
    summary: "List a context's API keys (prefixes only)",
    description:
      "Keys are listed by prefix and state (active, last used, revoked); a key's secret is never shown again after it is issued.",
    tags: ["admin"],
    params: ContextParams,
    query: z.object({ limit: limitParam(100, 500), cursor: cursorParam("time") }),
    responses: {
      200: { description: "A page of keys, oldest first", schema: z.object({ keys: z.array(KeyView), next_cursor: NextCursor }) },
    },
    handle: async ({ params, query }) => {
      const page = pageByCreation(await keys.list(params.contextId, query.limit, query.cursor), query.limit);
      return { status: 200, body: { keys: page.items.map(keyView), next_cursor: page.nextCursor } };
    },
  });
}

function issueKey(keys: ApiKeyService): RouteDefinition {
  return defineRoute({
    method: "post",
    idempotent: true,
    path: "/:contextId/keys",
    summary: "Issue another API key for a context",
    description:
      "The new key works at once beside the existing ones and is shown only in this answer. Use it to give each client its own key, so one can be revoked alone.",
    tags: ["admin"],
    params: ContextParams,
    responses: { 201: { description: "The new key, shown once", schema: IssuedKey } },
    handle: async ({ params }) => ({ status: 201, body: issuedView(await keys.issue(params.contextId)) }),
  });
}

function rotateKey(keys: ApiKeyService): RouteDefinition {
  return defineRoute({
    method: "post",
    idempotent: true,
    path: "/:contextId/keys/:keyId/rotate",
    summary: "Replace an active key with a new one; the old one is revoked unless keep_old is true",
    description: "keep_old lets clients switch over before the old key is revoked with DELETE. A revoked key cannot be rotated (409).",
    tags: ["admin"],
    params: KeyParams,
    body: z.object({ keep_old: z.boolean().default(false) }),
    responses: {
      201: { description: "The new key, shown once, and what became of the old one", schema: IssuedKey.extend({ replaced: KeyView }) },
      409: conflict,
    },
    handle: async ({ params, body }) => {
      const { issued, replaced } = await keys.rotate(params.contextId, params.keyId, body.keep_old);
      return { status: 201, body: { ...issuedView(issued), replaced: keyView(replaced) } };
    },
  });
}

function revokeKey(keys: ApiKeyService): RouteDefinition {
  return defineRoute({
    method: "delete",
    idempotent: true,
    path: "/:contextId/keys/:keyId",
    summary: "Revoke a key (at once; revoking twice is harmless)",
    description:
      "The next request with the key answers 401, even in a process that has verified it before. 404 when the key is not the context's.",
    tags: ["admin"],
    params: KeyParams,
    responses: { 200: { description: "The revoked key", schema: KeyView } },
    handle: async ({ params }) => ({ status: 200, body: keyView(await keys.revoke(params.contextId, params.keyId)) }),
  });
}

function issuedView({ row, apiKey }: IssuedKeyRow) {
  return { key_id: row.id, prefix: row.prefix, api_key: apiKey };
}

function keyView(key: { id: string; prefix: string; createdAt: Date; lastUsedAt: Date | null; revokedAt: Date | null }) {
  return {
    key_id: key.id,
    prefix: key.prefix,
    active: key.revokedAt === null,
    created_at: key.createdAt,
    last_used_at: key.lastUsedAt,
    revoked_at: key.revokedAt,
  };
}
