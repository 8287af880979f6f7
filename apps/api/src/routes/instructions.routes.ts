// GET /instructions: the standing directives in the reader's scope, and with include_revoked
// the revoked ones, each with when and by which turn it was given and revoked; paged like every list.
import { z } from "zod";
import { readInstructionHistory } from "@recall/memory";
import type { ApiDeps } from "../deps";
import { readWhereConsistent } from "../http/consistency";
import { cursorParam, encodeCursor, limitParam } from "../http/pagination";
import { defineRoute, type RouteDefinition } from "../http/route-definition";
import { ScopeQuery } from "../http/scope-schema";
import { InstructionPage, instructionView } from "./memory.schemas";

const InstructionsQuery = z.object({
  scope: ScopeQuery,
  include_revoked: z
    .enum(["true", "false"])
    .default("false")
    .transform((v) => v === "true")
    .describe("also list instructions a later turn revoked"),
  limit: limitParam(100, 500),
  cursor: cursorParam("time"),
});

export function instructionRoutes(deps: ApiDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: "get",
      path: "/instructions",
      summary: "Instructions in scope with who gave them and when; include_revoked=true adds revoked ones with who revoked them",
      description:
        'Standing directives ("always answer in bullet points") visible to the reader\'s scope, oldest first, each with the turn, document or direct write that gave it. A revoked instruction is kept with when and by which turn it was revoked.',
      tags: ["memory"],
      params: z.object({ contextId: z.string() }),
      query: InstructionsQuery,
      responses: {
        200: {
          description: "A page of instructions, oldest first",
          schema: InstructionPage,
        },
      },
      handle: async ({ params, query, req, res }) => {
        const page = await readWhereConsistent(deps, req, res, (db) =>
          readInstructionHistory(
            db,
            { contextId: params.contextId, scope: query.scope },
            { includeRevoked: query.include_revoked, limit: query.limit, after: query.cursor },
          ),
        );
        return { status: 200, body: { instructions: page.items.map(instructionView), next_cursor: encodeCursor(page.next) } };
      },
    }),
  ];
}
