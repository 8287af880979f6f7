// MCP tools for review before commit (docs/review.md), on the agent's endpoint under its context's key: the held
// candidates of a context whose config sets `review`, and a decision on one of them. Each calls ReviewService, as
// the routes of reviews.routes.ts do, and answers what they answer (the same ReviewView).
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { ApiDeps } from "../deps";
import { NextCursor, cursorParam, encodeCursor } from "../http/pagination";
import { ReviewView, reviewView } from "../routes/reviews.routes";
import { READ_ONLY, asTool, structured } from "./mcp-agent-tools";
import { REVIEW_PAGE_DEFAULT, REVIEW_PAGE_MAX, ReviewEdit, ReviewListFields, ReviewNote, reviewFilterOf, reviewId } from "./review-inputs";

/** A decision changes the review, never memory already read; the same decision again answers it as it stands. */
const DECIDES: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const ReviewPage = z.object({ reviews: z.array(ReviewView), next_cursor: NextCursor });

export function registerReviewTools(server: McpServer, deps: ApiDeps, contextId: string): void {
  const { reviews } = deps;
  server.registerTool(
    "list_reviews",
    {
      title: "List reviews",
      description:
        "Candidates held for a person's approval (with the context's `review` rule set), oldest first: each with the " +
        "candidate, the quote and span it rests on and its source turn or document. status defaults to pending.",
      inputSchema: z.strictObject({
        ...ReviewListFields,
        limit: z
          .number()
          .int()
          .min(1)
          .max(REVIEW_PAGE_MAX)
          .optional()
          .describe(`page size (default ${REVIEW_PAGE_DEFAULT}, at most ${REVIEW_PAGE_MAX})`),
        cursor: cursorParam("seq"),
      }),
      outputSchema: ReviewPage,
      annotations: READ_ONLY,
    },
    ({ limit, cursor, ...fields }) =>
      asTool(async () => {
        const page = await reviews.list(contextId, reviewFilterOf(fields), { after: cursor, limit: limit ?? REVIEW_PAGE_DEFAULT });
        return structured({ reviews: page.items.map(reviewView), next_cursor: encodeCursor(page.next) });
      }),
  );
  server.registerTool(
    "approve_review",
    {
      title: "Approve a review",
      description:
        "Approve a held candidate, optionally edited (edit: {field: new value, or null to remove an optional one}); it " +
        "then commits with its source's provenance and turns committed. Refused when it was rejected or withdrawn.",
      inputSchema: z.strictObject({ review_id: reviewId, edit: ReviewEdit, note: ReviewNote }),
      outputSchema: ReviewView,
      annotations: DECIDES,
    },
    ({ review_id, edit, note }) =>
      asTool(async () => structured(reviewView(await reviews.decide(contextId, review_id, "approve", { edit, note })))),
  );
  server.registerTool(
    "reject_review",
    {
      title: "Reject a review",
      description:
        "Reject a held candidate: the decision is recorded and it never reaches memory. Refused when it was approved or withdrawn.",
      inputSchema: z.strictObject({ review_id: reviewId, note: ReviewNote }),
      outputSchema: ReviewView,
      annotations: DECIDES,
    },
    ({ review_id, note }) => asTool(async () => structured(reviewView(await reviews.decide(contextId, review_id, "reject", { note })))),
  );
}
