// Request and response shapes of the session and turn routes.
import { z } from "zod";
import { Attachment, AttachmentList, Metadata, cappedText } from "@recall/contracts";
import { NextCursor } from "../http/pagination";
import { ScopeBody } from "../http/scope-schema";
import { Timestamp } from "../views/work-item-view";

export const CreateSessionBody = z.object({ metadata: Metadata.optional() });

const TurnFields = z.object({
  role: z.enum(["user", "assistant", "system", "tool"]),
  content: cappedText("content").min(1, "must not be empty"),
  name: cappedText("speaker")
    .trim()
    .min(1)
    .optional()
    .describe('the speaker\'s name, as on a chat message; "I" and "my" in the content then refer to them'),
  occurred_at: z.iso
    .datetime({ offset: true })
    .optional()
    .describe("when it was said, for imports; temporal phrases resolve against it (default: now)"),
  attachments: AttachmentList.optional().describe(
    "images, files or links shared with the turn; their caption and alt text are indexed, quotable as evidence and shown with the content; a URL is stored, never fetched",
  ),
  scope: ScopeBody.describe(
    'the turn\'s scope, e.g. ["org=acme", "user=alice"] or {"org": "acme", "user": "alice"}; what it teaches is visible to readers whose scope includes it',
  ),
});

export const CreateTurnBody = TurnFields.extend({
  wait: z
    .boolean()
    .default(true)
    .describe(
      "false: answer 202 at once with the turn id and a status URL; the turn is then extracted with other asynchronous turns of its session in one model call per window",
    ),
});

export const TurnBatchBody = z.object({
  turns: z
    .array(TurnFields)
    .min(1, "must hold at least one turn")
    .max(500, "at most 500 turns per batch")
    .describe("in the order they were said"),
});

export const TurnAccepted = z.object({
  turn_id: z.uuid(),
  status_url: z.string(),
  extraction: z.object({ status: z.literal("pending") }),
  trace_id: z.string(),
});

export const BatchAccepted = z.object({
  batch_id: z.uuid(),
  turn_ids: z.array(z.uuid()),
  status_url: z.string(),
  trace_id: z.string(),
});

export const BatchStatus = z.object({
  batch_id: z.uuid(),
  session_id: z.uuid(),
  state: z.enum(["processing", "done"]).describe("done once every turn is committed, awaiting a model, failed or cancelled"),
  turns: z.number().int(),
  counts: z.object({
    queued: z.number().int(),
    processing: z.number().int(),
    committed: z.number().int(),
    awaiting_model: z.number().int().describe("the rules' part committed, the rest waits for a model (not failed)"),
    failed: z.number().int(),
    cancelled: z.number().int(),
  }),
  failures: z.array(
    z.object({
      turn_id: z.uuid(),
      seq: z.number().int(),
      queue: z.string(),
      work_item_id: z.uuid(),
      error_class: z.string().nullable(),
      message: z.string().nullable(),
    }),
  ),
});

export const TurnParams = z.object({
  contextId: z.string(),
  sessionId: z.uuid("must be a session id"),
  turnId: z.uuid("must be a turn id"),
});
export const BatchParams = z.object({
  contextId: z.string(),
  sessionId: z.uuid("must be a session id"),
  batchId: z.uuid("must be a batch id"),
});

export const SessionParams = z.object({ contextId: z.string(), sessionId: z.uuid("must be a session id") });

const Category = z.enum(["identity", "knowledge", "context"]);

export const DiffView = z.object({
  entities: z.array(z.object({ name: z.string(), type: z.string(), memory_category: Category })),
  attributes: z.array(z.object({ entity: z.string(), key: z.string(), value: z.string(), memory_category: Category })),
  relations: z.array(z.object({ subject: z.string(), verb: z.string(), object: z.string(), memory_category: Category })),
  instructions: z.array(z.object({ label: z.string(), description: z.string() })),
  uncertainties: z.array(z.object({ about: z.string(), reason: z.string() })),
});

export const TurnResult = z.object({
  turn_id: z.uuid(),
  diff: DiffView,
  extraction: z.object({
    status: z
      .enum(["committed", "pending_review", "awaiting_model", "failed", "cancelled", "pending"])
      .describe(
        "pending_review: committed, with candidates the context's review rule holds until approved (GET …/reviews); " +
          "awaiting_model: what the rules read for sure is committed (the diff), the rest needs a model none is configured for " +
          "(not a failure: POST /api/v1/admin/work-items/extract-again once one is)",
      ),
    stage: z.string().nullable(),
    pending_reviews: z.number().int().optional().describe("candidates of this turn waiting for review"),
    error_class: z.string().nullable().optional(),
    message: z.string().nullable().optional(),
    queue: z.string().optional(),
    work_item_id: z.uuid().optional().describe("the failed work item, to retry once the cause is fixed"),
    awaiting_model: z
      .object({ work_item_id: z.uuid(), reason: z.string().nullable() })
      .optional()
      .describe("the extraction item waiting for a model, and why the rules could not read the rest"),
  }),
  status_url: z.string().optional().describe("while the extraction is pending (a 202): where to follow it"),
  trace_id: z.string(),
});

export const TurnView = z.object({
  turn_id: z.uuid(),
  seq: z.number().int(),
  role: z.string(),
  content: z.string(),
  attachments: z.array(Attachment),
  attachment_text: z
    .string()
    .describe(
      "the attachments' captions and alt text, one line each (`[image] caption — alt text`); a /query hit's text, an evidence span and a review's span read the content, a newline, then this (when not empty)",
    ),
  scope: z.array(z.string()),
  created_at: Timestamp,
  trace_id: z.string(),
});

export const TurnPage = z.object({ turns: z.array(TurnView), next_cursor: NextCursor });
