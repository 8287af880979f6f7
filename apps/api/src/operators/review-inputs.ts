// The inputs of the operator-side review tools (MCP and the admin dashboard), as the review routes take them
// (reviews.routes.ts): which reviews to list, and a decision's edit and note. ReviewService judges the rest.
import { z } from "zod";
import { DECISION_TEXT_CHARS, cappedText } from "@recall/contracts";
import { ReviewView } from "../routes/reviews.routes";

export const REVIEW_PAGE_DEFAULT = 50;
export const REVIEW_PAGE_MAX = 200;

export const reviewId = z.uuid("must be a review id");

/** Which reviews: a status (default pending) and the filters of GET …/reviews. */
export const ReviewListFields = {
  status: ReviewView.shape.status.optional().describe("which reviews (default pending)"),
  turn_id: z.uuid("must be a turn id").optional(),
  document_id: z.uuid("must be a document id").optional(),
  session_id: z.uuid("must be a session id").optional(),
  kind: ReviewView.shape.kind.optional(),
  memory_category: ReviewView.shape.memory_category.unwrap().optional(),
};

export const ReviewNote = z
  .string()
  .trim()
  .max(DECISION_TEXT_CHARS, `at most ${DECISION_TEXT_CHARS} characters`)
  .optional()
  .describe("why, kept with the decision");

export const ReviewEdit = z
  .record(z.string(), cappedText("value").trim().min(1, "must not be blank").nullable())
  .optional()
  .describe("fields to change before committing ({field: new value}, null removes an optional one); the quote and span stay the source's");

/** The list fields as the memory reader's filter. */
export function reviewFilterOf(q: { [K in keyof typeof ReviewListFields]?: z.output<(typeof ReviewListFields)[K]> }) {
  return {
    status: q.status ?? "pending",
    turnId: q.turn_id,
    documentId: q.document_id,
    sessionId: q.session_id,
    kind: q.kind,
    category: q.memory_category,
  };
}
