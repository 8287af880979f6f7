// MCP tools for review before commit (docs/review.md), on the agent's endpoint under its context's key: the held
// candidates of a context whose config sets `review`, and a decision on one of them. Each calls ReviewService, as
// the routes of reviews.routes.ts do, and answers what they answer (the same ReviewView).
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { ApiDeps } from "../deps";
import { NextCursor, cursorParam, encodeCursor } from "../http/pagination";
import { ReviewView, reviewView } from "../routes/reviews.routes";
import { ReviewService } from "../services/review.service";
import { READ_ONLY, asTool, structured } from "./mcp-agent-tools";

/** A decision changes the review, never memory already read; the same decision again answers it as it stands. */
const DECIDES: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const LIST_DEFAULT = 50;
const LIST_MAX = 200;

const ReviewPage = z.object({ reviews: z.array(ReviewView), next_cursor: NextCursor });
const reviewId = z.uuid("must be a review id");
const note = z.string().trim().max(1_000, "at most 1000 characters").optional().describe("why, kept with the decision");

export function registerReviewTools(server: McpServer, deps: ApiDeps, contextId: string): void {
  const reviews = new ReviewService(deps);
  server.registerTool(
    "list_reviews",
    {
      title: "List reviews",
      description:
        "Candidates held for a person's approval (with the context's `review` rule set), oldest first: each with the " +
        "candidate, the quote and span it rests on and its source turn or document. status defaults to pending.",
      inputSchema: {
        status: ReviewView.shape.status.optional().describe("which reviews (default pending)"),
        turn_id: z.uuid("must be a turn id").optional(),
        document_id: z.uuid("must be a document id").optional(),
        session_id: z.uuid("must be a session id").optional(),
        kind: ReviewView.shape.kind.optional(),
        memory_category: ReviewView.shape.memory_category.unwrap().optional(),
        limit: z.number().int().min(1).max(LIST_MAX).optional().describe(`page size (default ${LIST_DEFAULT}, at most ${LIST_MAX})`),
        cursor: cursorParam("seq"),
      },
      outputSchema: ReviewPage,
      annotations: READ_ONLY,
    },
    ({ status, turn_id, document_id, session_id, kind, memory_category, limit, cursor }) =>
      asTool(async () => {
        const filter = {
          status: status ?? "pending",
          turnId: turn_id,
          documentId: document_id,
          sessionId: session_id,
          kind,
          category: memory_category,
        };
        const page = await reviews.list(contextId, filter, { after: cursor, limit: limit ?? LIST_DEFAULT });
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
      inputSchema: {
        review_id: reviewId,
        edit: z
          .record(z.string(), z.string().trim().min(1, "must not be blank").max(2_000, "at most 2000 characters").nullable())
          .optional()
          .describe("fields to change before committing; the quote and span stay the source's"),
        note,
      },
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
      inputSchema: { review_id: reviewId, note },
      outputSchema: ReviewView,
      annotations: DECIDES,
    },
    ({ review_id, note }) => asTool(async () => structured(reviewView(await reviews.decide(contextId, review_id, "reject", { note })))),
  );
}
