// GET /entities/{id}/history: every value an entity had, with validity and supersession.
import { notFound } from "@recall/contracts";
import { z } from "zod";
import { readEntityHistory } from "@recall/memory";
import type { ApiDeps } from "../deps";
import { readWhereConsistent } from "../http/consistency";
import { cursorParam, encodeCursor, limitParam } from "../http/pagination";
import { defineRoute, type RouteDefinition } from "../http/route-definition";
import { ScopeQuery } from "../http/scope-schema";
import { History } from "./memory.schemas";

const EntityParams = z.object({ contextId: z.string(), entityId: z.uuid("must be an entity id") });
const HistoryQuery = z.object({ scope: ScopeQuery, limit: limitParam(200, 1_000), cursor: cursorParam("time") });

export function entityRoutes(deps: ApiDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: "get",
      path: "/entities/:entityId/history",
      summary: "Every value of an entity's attributes and relations, in valid-time order",
      description:
        "Superseded, expired and retracted values included, each with its validity interval, what replaced it and `current`. Only values written in a subset of the reader's scope are listed; an entity the reader cannot see is a 404.",
      tags: ["memory"],
      params: EntityParams,
      query: HistoryQuery,
      responses: { 200: { description: "The history", schema: History } },
      handle: async ({ params, query, req, res }) => {
        const history = await readWhereConsistent(deps, req, res, (db) =>
          readEntityHistory(db, { ...params, scope: query.scope, limit: query.limit, after: query.cursor }),
        );
        if (!history) throw notFound("entity");
        return { status: 200, body: { entity: history.entity, values: history.values, next_cursor: encodeCursor(history.next) } };
      },
    }),
  ];
}
