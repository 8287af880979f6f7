// POST /state: the facts true at a valid-time instant as known at a system-time instant, with unknowns.
import { z } from "zod";
import { readState } from "@recall/memory";
import type { ApiDeps } from "../deps";
import { readWhereConsistent } from "../http/consistency";
import { cursorParam, encodeCursor, limitParam } from "../http/pagination";
import { defineRoute, type RouteDefinition } from "../http/route-definition";
import { ScopeBody } from "../http/scope-schema";
import { State } from "./memory.schemas";

const ContextParams = z.object({ contextId: z.string() });

const StateBody = z.object({
  scope: ScopeBody,
  as_of: z.iso.datetime({ offset: true }).optional().describe("valid time: what was true in the world then (default now)"),
  recorded_as_of: z.iso.datetime({ offset: true }).optional().describe("system time: as the store knew it then (default now)"),
  include_resolved: z.boolean().default(false).describe("also list unknowns a later fact resolved"),
  limit: limitParam(500, 2_000),
  cursor: cursorParam("time"),
});

export function stateRoutes(deps: ApiDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: "post",
      path: "/state",
      summary: "Current facts in scope, active instructions and open unknowns",
      description:
        "The facts true at `as_of` (valid time, default now) as the store knew them at `recorded_as_of` (system time, default now), with the active instructions and the open uncertainties (`unknowns`) on the first page. Ask here what is known for sure, and what is not.",
      tags: ["memory"],
      params: ContextParams,
      body: StateBody,
      responses: { 200: { description: "The state", schema: State } },
      handle: async ({ params, body, req, res }) => {
        const state = await readWhereConsistent(deps, req, res, (db) =>
          readState(db, {
            contextId: params.contextId,
            scope: body.scope,
            asOf: body.as_of ? new Date(body.as_of) : undefined,
            recordedAsOf: body.recorded_as_of ? new Date(body.recorded_as_of) : undefined,
            includeResolved: body.include_resolved,
            limit: body.limit,
            after: body.cursor,
          }),
        );
        const { next, ...rest } = state;
        return { status: 200, body: { ...rest, next_cursor: encodeCursor(next) } };
      },
    }),
  ];
}
