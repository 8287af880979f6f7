// GET /instructions: the standing directives in the reader's scope, and with include_revoked
// the revoked ones, each with when and by which turn it was given and revoked; paged like every list.
import { z } from "zod";
import { readInstructionHistory } from "@recall/memory";
import type { ApiDeps } from "../deps";
import { NextCursor, cursorParam, encodeCursor, limitParam } from "../http/pagination";
import { defineRoute, type RouteDefinition } from "../http/route-definition";
import { ScopeQuery } from "../http/scope-schema";
import { Timestamp } from "../views/work-item-view";
import { Instruction } from "./memory.schemas";

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

export const InstructionHistory = Instruction.extend({
  active: z.boolean(),
  given_at: Timestamp,
  given_by: z.object({ turn_id: z.uuid().nullable(), document_id: z.uuid().nullable(), fact_write_id: z.uuid().nullable() }),
  revoked_at: Timestamp.nullable(),
  revoked_by_turn_id: z.uuid().nullable(),
});

export const InstructionPage = z.object({ instructions: z.array(InstructionHistory), next_cursor: NextCursor });

export function instructionView(row: Awaited<ReturnType<typeof readInstructionHistory>>["items"][number]) {
  const { given_by_turn_id, given_by_document_id, given_by_fact_write_id, ...rest } = row;
  return {
    ...rest,
    given_at: row.created_at,
    given_by: { turn_id: given_by_turn_id, document_id: given_by_document_id, fact_write_id: given_by_fact_write_id },
  };
}

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
      handle: async ({ params, query }) => {
        const page = await readInstructionHistory(
          deps.db,
          { contextId: params.contextId, scope: query.scope },
          { includeRevoked: query.include_revoked, limit: query.limit, after: query.cursor },
        );
        return { status: 200, body: { instructions: page.items.map(instructionView), next_cursor: encodeCursor(page.next) } };
      },
    }),
  ];
}
