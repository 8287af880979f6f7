// Admin API (Authorization: Bearer ADMIN_API_KEY): a context's API keys. A key is shown
// once, when issued; only its prefix and a scrypt hash are stored. Every lookup is by
// context and key id together, so a key id of another context is simply not found.
import { z } from "zod";
import type { Db } from "@recall/db";
import { issueApiKey } from "../http/api-keys";
import type { ApiDeps } from "../deps";
import { notFound } from "../http/errors";
import { Cursor, NextCursor, limitParam, pageByCreation } from "../http/pagination";
import { defineRoute, type RouteDefinition } from "../http/route-definition";
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
  return [listKeys(deps), issueKey(deps), rotateKey(deps), revokeKey(deps)];
}

function listKeys(deps: ApiDeps): RouteDefinition {
  return defineRoute({
    method: "get",
    path: "/:contextId/keys",
    summary: "List a context's API keys (prefixes only)",
    tags: ["admin"],
    params: ContextParams,
    query: z.object({ limit: limitParam(100, 500), cursor: Cursor }),
    responses: {
      200: { description: "A page of keys, oldest first", schema: z.object({ keys: z.array(KeyView), next_cursor: NextCursor }) },
    },
    handle: async ({ params, query }) => {
      await contextOf(deps.db, params.contextId);
      const after = query.cursor && new Date(String(query.cursor.k));
      const rows = await deps.db.apiKey.findMany({
        where: {
          contextId: params.contextId,
          ...(after && query.cursor ? { OR: [{ createdAt: { gt: after } }, { createdAt: after, id: { gt: query.cursor.id } }] } : {}),
        },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        take: query.limit + 1,
      });
      const page = pageByCreation(rows, query.limit);
      return { status: 200, body: { keys: page.items.map(keyView), next_cursor: page.nextCursor } };
    },
  });
}

function issueKey(deps: ApiDeps): RouteDefinition {
  return defineRoute({
    method: "post",
    idempotent: true,
    path: "/:contextId/keys",
    summary: "Issue another API key for a context",
    tags: ["admin"],
    params: ContextParams,
    responses: { 201: { description: "The new key, shown once", schema: IssuedKey } },
    handle: async ({ params }) => {
      await contextOf(deps.db, params.contextId);
      return { status: 201, body: await issueFor(deps.db, params.contextId) };
    },
  });
}

function rotateKey(deps: ApiDeps): RouteDefinition {
  return defineRoute({
    method: "post",
    idempotent: true,
    path: "/:contextId/keys/:keyId/rotate",
    summary: "Replace a key with a new one; the old one is revoked unless keep_old is true",
    description: "keep_old lets clients switch over before the old key is revoked with DELETE.",
    tags: ["admin"],
    params: KeyParams,
    body: z.object({ keep_old: z.boolean().default(false) }),
    responses: {
      201: { description: "The new key, shown once, and what became of the old one", schema: IssuedKey.extend({ replaced: KeyView }) },
    },
    handle: async ({ params, body }) => {
      const old = await keyOf(deps.db, params.contextId, params.keyId);
      const issued = await issueFor(deps.db, params.contextId);
      const replaced =
        body.keep_old || old.revokedAt ? old : await deps.db.apiKey.update({ where: { id: old.id }, data: { revokedAt: new Date() } });
      return { status: 201, body: { ...issued, replaced: keyView(replaced) } };
    },
  });
}

function revokeKey(deps: ApiDeps): RouteDefinition {
  return defineRoute({
    method: "delete",
    idempotent: true,
    path: "/:contextId/keys/:keyId",
    summary: "Revoke a key (at once; revoking twice is harmless)",
    tags: ["admin"],
    params: KeyParams,
    responses: { 200: { description: "The revoked key", schema: KeyView } },
    handle: async ({ params }) => {
      const key = await keyOf(deps.db, params.contextId, params.keyId);
      const revoked = key.revokedAt ? key : await deps.db.apiKey.update({ where: { id: key.id }, data: { revokedAt: new Date() } });
      return { status: 200, body: keyView(revoked) };
    },
  });
}

async function contextOf(db: Db, contextId: string): Promise<void> {
  if (!(await db.context.findUnique({ where: { id: contextId }, select: { id: true } }))) throw notFound("context");
}

async function keyOf(db: Db, contextId: string, keyId: string) {
  const key = await db.apiKey.findFirst({ where: { id: keyId, contextId } });
  if (!key) throw notFound("key");
  return key;
}

async function issueFor(db: Db, contextId: string) {
  const issued = await issueApiKey();
  const row = await db.apiKey.create({ data: { contextId, prefix: issued.prefix, hash: issued.hash } });
  return { key_id: row.id, prefix: row.prefix, api_key: issued.key };
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
