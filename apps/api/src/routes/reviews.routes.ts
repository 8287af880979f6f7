// Review before commit (docs/review.md): the held candidates of a context whose config sets `review`, and the
// decisions on them, one by one or by filter.
import { z } from "zod";
import { DECISION_TEXT_CHARS, cappedText } from "@recall/contracts";
import { EDITABLE_FIELDS, type ReviewView as ReviewRow } from "@recall/memory";
import type { ApiDeps } from "../deps";
import { NextCursor, cursorParam, encodeCursor, limitParam } from "../http/pagination";
import { defineRoute, type RouteDefinition } from "../http/route-definition";
import { REVIEW_BULK_MAX, type ReviewAction, type ReviewService } from "../services/review.service";
import { Timestamp } from "../views/work-item-view";

const STATUSES = ["pending", "approved", "committed", "rejected", "withdrawn"] as const;
const KINDS = ["entity", "attribute", "relation", "instruction", "uncertainty", "revocation"] as const;
const CATEGORIES = ["identity", "knowledge", "context"] as const;

const ContextParams = z.object({ contextId: z.string() });
const ReviewParams = ContextParams.extend({ reviewId: z.uuid("must be a review id") });

const FilterFields = {
  turn_id: z.uuid("must be a turn id").optional(),
  document_id: z.uuid("must be a document id").optional(),
  session_id: z.uuid("must be a session id").optional(),
  kind: z.enum(KINDS).optional(),
  memory_category: z.enum(CATEGORIES).optional(),
};

const ListQuery = z.object({
  status: z.enum(STATUSES).default("pending").describe("which reviews (default pending)"),
  ...FilterFields,
  limit: limitParam(50, 200),
  cursor: cursorParam("seq"),
});

const Note = z
  .string()
  .trim()
  .max(DECISION_TEXT_CHARS, `at most ${DECISION_TEXT_CHARS} characters`)
  .optional()
  .describe("why, kept with the decision");

// No edited field is longer than the value cap; the name and predicate caps are the candidate schemas' (validateEdited).
const EditValue = cappedText("value").trim().min(1, "must not be blank").nullable();
const editable = [...new Set(Object.values(EDITABLE_FIELDS).flat())];
const ApproveBody = z
  .object({
    edit: z
      .record(z.string(), EditValue)
      .refine((e) => Object.keys(e).length <= editable.length, `at most ${editable.length} fields`)
      .optional()
      .describe(
        `fields to change before committing (per kind: ${Object.entries(EDITABLE_FIELDS)
          .map(([k, f]) => `${k}: ${f.join(", ") || "none"}`)
          .join("; ")}); null removes an optional one. The quote and span stay the source's; the change is recorded on the review.`,
      ),
    note: Note,
  })
  .strict();
const RejectBody = z.object({ note: Note }).strict();

const BulkBody = z
  .object({
    review_ids: z
      .array(z.uuid("each must be a review id"))
      .min(1, "name at least one review")
      .max(REVIEW_BULK_MAX, `at most ${REVIEW_BULK_MAX} ids`)
      .optional()
      .describe("these reviews; or leave out and give a filter"),
    filter: z
      .object(FilterFields)
      .strict()
      .optional()
      .describe("pending reviews matching every field, oldest first ({} matches all pending)"),
    limit: z
      .number()
      .int()
      .min(1)
      .max(REVIEW_BULK_MAX)
      .default(REVIEW_BULK_MAX)
      .describe(`with a filter: at most this many (≤ ${REVIEW_BULK_MAX})`),
    note: Note,
  })
  .strict()
  .superRefine((body, ctx) => {
    if (!body.review_ids === !body.filter) {
      ctx.addIssue({ code: "custom", path: ["review_ids"], message: "give review_ids or filter (one of them)" });
    }
  });

export const ReviewView = z.object({
  review_id: z.uuid(),
  status: z.enum(STATUSES).describe("pending; approved (its commit queued); committed; rejected; withdrawn (its input was retracted)"),
  kind: z.enum(KINDS),
  memory_category: z.enum(CATEGORIES).nullable(),
  candidate: z.record(z.string(), z.unknown()).describe("the candidate as it commits (edited, when a reviewer edited it)"),
  quote: z.string().nullable().describe("the source's words it rests on"),
  span: z
    .object({ start_byte: z.number().int(), end_byte: z.number().int() })
    .nullable()
    .describe(
      "UTF-8 byte offsets of the quote in the document text, or in the turn's text: its content, then (after a newline) its attachments' text",
    ),
  source: z.object({
    type: z.enum(["turn", "document"]),
    turn_id: z.string().nullable(),
    session_id: z.string().nullable(),
    document_id: z.string().nullable(),
    document_node_id: z.string().nullable(),
  }),
  edit: z
    .record(z.string(), z.object({ from: z.unknown(), to: z.unknown() }))
    .nullable()
    .describe("what the reviewer changed"),
  note: z.string().nullable(),
  created_at: Timestamp,
  decided_at: Timestamp.nullable(),
  committed_at: Timestamp.nullable(),
});

const BulkView = z.object({
  decided: z.array(z.string()).describe("reviews this call approved or rejected"),
  unchanged: z.array(z.string()).describe("named reviews that already stood so"),
  refused: z.array(z.object({ review_id: z.string(), status: z.enum(STATUSES) })).describe("named reviews whose state refuses it"),
  remaining: z.number().int().describe("pending reviews still matching the filter: call again for them"),
});

export function reviewRoutes(deps: ApiDeps): RouteDefinition[] {
  const { reviews } = deps;
  return [
    defineRoute({
      method: "get",
      path: "/reviews",
      summary: "List reviews: candidates held for approval (status=pending by default), oldest first",
      description:
        "With the context's `review` rule set (POST /api/v1/contexts config, docs/review.md), extracted candidates wait here instead of reaching memory. Each carries the candidate, the quote and span it rests on, and its source turn or document.",
      tags: ["review"],
      params: ContextParams,
      query: ListQuery,
      responses: { 200: { description: "A page of reviews", schema: z.object({ reviews: z.array(ReviewView), next_cursor: NextCursor }) } },
      handle: async ({ params, query }) => {
        const filter = {
          status: query.status,
          turnId: query.turn_id,
          documentId: query.document_id,
          sessionId: query.session_id,
          kind: query.kind,
          category: query.memory_category,
        };
        const page = await reviews.list(params.contextId, filter, { after: query.cursor, limit: query.limit });
        return { status: 200, body: { reviews: page.items.map(reviewView), next_cursor: encodeCursor(page.next) } };
      },
    }),
    defineRoute({
      method: "get",
      path: "/reviews/:reviewId",
      summary: "Read one review",
      description:
        "The review as it stands now: its candidate (edited, once approved with an edit), quote, span, source and decision. 404 when it is not this context's.",
      tags: ["review"],
      params: ReviewParams,
      responses: { 200: { description: "The review", schema: ReviewView } },
      handle: async ({ params }) => ({ status: 200, body: reviewView(await reviews.get(params.contextId, params.reviewId)) }),
    }),
    single(reviews, "approve"),
    single(reviews, "reject"),
    bulk(reviews, "approve"),
    bulk(reviews, "reject"),
  ];
}

function single(reviews: ReviewService, action: ReviewAction): RouteDefinition {
  const approve = action === "approve";
  return defineRoute({
    method: "post",
    idempotent: true,
    path: `/reviews/:reviewId/${action}`,
    summary: approve
      ? "Approve a review, optionally edited: it commits (supersession and truth maintenance run) in the order the inputs arrived"
      : "Reject a review: recorded, never committed",
    description: approve
      ? "Answers 202 with the review `approved`; a worker commits it with its source's provenance and it turns `committed`. Approving again answers the review as it stands. 409 when it was rejected or withdrawn; 400 naming the field when an edit breaks the candidate's rules."
      : "Rejecting again answers the review as it stands. 409 when it was approved (or committed) or withdrawn.",
    tags: ["review"],
    params: ReviewParams,
    body: approve ? ApproveBody : RejectBody,
    bodyExample: approve ? { edit: { value: "Lisbon" }, note: "moved last month" } : { note: "not about the user" },
    responses: { [approve ? 202 : 200]: { description: "The review after the decision", schema: ReviewView } },
    handle: async ({ params, body }) => {
      const review = await reviews.decide(params.contextId, params.reviewId, action, body);
      return { status: approve ? 202 : 200, body: reviewView(review) };
    },
  });
}

function bulk(reviews: ReviewService, action: ReviewAction): RouteDefinition {
  return defineRoute({
    method: "post",
    idempotent: true,
    path: `/reviews/bulk-${action}`,
    summary: `${action === "approve" ? "Approve" : "Reject"} many reviews: named ones, or pending ones matching a filter (at most ${REVIEW_BULK_MAX} a call)`,
    description: `One transaction. With review_ids, 404 naming the field when one is not this context's (nothing is decided). With a filter, the oldest ${REVIEW_BULK_MAX} (or \`limit\`) pending matches; \`remaining\` says how many more match.`,
    tags: ["review"],
    params: ContextParams,
    body: BulkBody,
    bodyExample: { filter: { turn_id: "7b1c2d4e-0000-4000-8000-000000000001", kind: "attribute" } },
    responses: { 200: { description: "What was decided", schema: BulkView } },
    handle: async ({ params, body }) => {
      const filter = body.filter && {
        turnId: body.filter.turn_id,
        documentId: body.filter.document_id,
        sessionId: body.filter.session_id,
        kind: body.filter.kind,
        category: body.filter.memory_category,
      };
      const outcome = await reviews.decideMany(params.contextId, action, {
        reviewIds: body.review_ids,
        filter,
        limit: body.limit,
        note: body.note,
      });
      const refused = outcome.refused.map((r) => ({ review_id: r.id, status: r.status }));
      return { status: 200, body: { decided: outcome.decided, unchanged: outcome.unchanged, refused, remaining: outcome.remaining } };
    },
  });
}

export function reviewView(r: ReviewRow): z.infer<typeof ReviewView> {
  return {
    review_id: r.id,
    status: r.status,
    kind: r.kind,
    memory_category: r.memory_category,
    candidate: r.candidate,
    quote: r.quote,
    span: r.span,
    source: r.source,
    edit: r.edit,
    note: r.note,
    created_at: r.created_at.toISOString(),
    decided_at: r.decided_at?.toISOString() ?? null,
    committed_at: r.committed_at?.toISOString() ?? null,
  };
}
