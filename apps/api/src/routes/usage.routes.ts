// GET …/usage: what a context spent on models over a time range (its API key), and the same across contexts
// under /api/v1/admin (the admin key), grouped by day, stage, model or (admin) context.
import { invalidField } from "@recall/contracts";
import { z } from "zod";
import type { ApiDeps } from "../deps";
import { defineRoute, type RouteDefinition } from "../http/route-definition";
import { Timestamp } from "../views/work-item-view";
import { USAGE_GROUPS, readUsage } from "../views/usage";

export type UsageMount = "context" | "admin";

/** The longest range one request sums (a day's groups over a year at most). */
export const MAX_USAGE_DAYS = 366;
const DAY_MS = 86_400_000;
const DEFAULT_DAYS = 7;

const Sums = {
  calls: z.number().int(),
  input_tokens: z.number().int().describe("prompt tokens"),
  output_tokens: z.number().int().describe("completion tokens"),
  cost_usd: z.number().describe("estimated from RECALL_MODEL_PRICES_JSON at the time of each call"),
  unpriced_calls: z.number().int().describe("calls of models without a price in RECALL_MODEL_PRICES_JSON (not in cost_usd)"),
};

const Usage = z.object({
  context_id: z.uuid().optional(),
  from: Timestamp,
  to: Timestamp,
  group_by: z.enum(USAGE_GROUPS),
  totals: z.object({
    ...Sums,
    inputs_extracted: z
      .object({ heuristic: z.number().int(), fast: z.number().int(), strong: z.number().int() })
      .describe("turns and document nodes extracted in the range, by the stage that finished them"),
  }),
  groups: z.array(z.object({ key: z.string().describe("the day (UTC), stage, model or context id"), ...Sums })),
});

const queryFor = (mount: UsageMount) =>
  z.object({
    from: Timestamp.optional().describe(`start of the range (inclusive); default: ${DEFAULT_DAYS} days before \`to\``),
    to: Timestamp.optional().describe("end of the range (exclusive); default: now"),
    group_by: (mount === "admin" ? z.enum(USAGE_GROUPS) : z.enum(["day", "stage", "model"])).default("day"),
  });

export function usageRoutes(deps: ApiDeps, mount: UsageMount = "context"): RouteDefinition[] {
  return [
    defineRoute({
      method: "get",
      path: "/usage",
      summary: mount === "context" ? "What this context spent on models: calls, tokens and cost" : "Model spend across contexts",
      description:
        `Model calls, prompt and completion tokens and estimated cost between \`from\` and \`to\` (at most ${MAX_USAGE_DAYS} days), ` +
        "grouped by `day` (UTC), `stage` (fast, strong, disambiguation), `model`" +
        (mount === "admin" ? " or `context`" : "") +
        "; with the inputs extracted in that range by the stage that finished them. A window's one model call for many turns counts once.",
      tags: ["operations"],
      ...(mount === "context" ? { params: z.object({ contextId: z.string() }) } : {}),
      query: queryFor(mount),
      responses: { 200: { description: "Sums and groups", schema: Usage } },
      handle: async ({ params, query }) => {
        const to = query.to ? new Date(query.to) : new Date();
        const from = query.from ? new Date(query.from) : new Date(to.getTime() - DEFAULT_DAYS * DAY_MS);
        if (from >= to) throw invalidField("query.from", "must be before `to`");
        if (to.getTime() - from.getTime() > MAX_USAGE_DAYS * DAY_MS)
          throw invalidField("query.from", `the range is at most ${MAX_USAGE_DAYS} days; ask for several`);
        const contextId = (params as { contextId?: string } | undefined)?.contextId;
        return { status: 200, body: await readUsage(deps.db, { contextId, from, to, groupBy: query.group_by }) };
      },
    }),
  ];
}
