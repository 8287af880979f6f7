// GET /profile: fetched before every system prompt, so it is three indexed queries.
import { z } from "zod";
import { readProfile } from "@recall/memory";
import type { ApiDeps } from "../deps";
import { readWhereConsistent } from "../http/consistency";
import { cursorParam, encodeCursor, limitParam } from "../http/pagination";
import { defineRoute, type RouteDefinition } from "../http/route-definition";
import { ScopeQuery } from "../http/scope-schema";
import { Profile } from "./memory.schemas";
import { EXAMPLES } from "./openapi-examples";

const ContextParams = z.object({ contextId: z.string() });
const ProfileQuery = z.object({ scope: ScopeQuery, limit: limitParam(50, 500), cursor: cursorParam("time") });

export function profileRoutes(deps: ApiDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: "get",
      path: "/profile",
      summary: "Entities in scope with their current attributes and relations, and the active instructions",
      description: "Entities most recently touched come first. Build the system prompt's standing rules from `instructions`.",
      tags: ["memory"],
      params: ContextParams,
      query: ProfileQuery,
      responses: { 200: { description: "The profile", schema: Profile, example: EXAMPLES.profile.response } },
      handle: async ({ params, query, req, res }) => {
        const profile = await readWhereConsistent(deps, req, res, (db) =>
          readProfile(db, { contextId: params.contextId, scope: query.scope, limit: query.limit, after: query.cursor }),
        );
        const { entities, instructions, next, truncated } = profile;
        return { status: 200, body: { entities, instructions, next_cursor: encodeCursor(next), ...(truncated ? { truncated } : {}) } };
      },
    }),
  ];
}
