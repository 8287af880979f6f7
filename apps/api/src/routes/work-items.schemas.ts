// Request and response shapes of the work-item routes, shared by the per-context and the admin mounts.
import { z } from "zod";
import type { WorkItemFilter } from "@recall/pipeline";
import type { WorkAttempt, WorkItem } from "@recall/db";
import { NextCursor, cursorParam, limitParam } from "../http/pagination";
import { Timestamp, WORK_STATUSES, WorkItemView, workItemView } from "../views/work-item-view";

const ERROR_CLASSES = ["provider", "budget", "validation", "no_provider", "internal", "abandoned"] as const;
const QUEUE_NAMES = ["extract_assertions", "validate_artifacts", "commit_artifacts", "truth_maintenance"] as const;

/** `status=failed,dead` or `status=failed&status=dead`: several values of one field. */
const listOf = <T extends readonly [string, ...string[]]>(values: T, what: string) =>
  z
    .union([z.string(), z.array(z.string())])
    .transform((v) =>
      (Array.isArray(v) ? v : [v])
        .flatMap((s) => s.split(","))
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.enum(values)))
    .optional()
    .describe(`one or more ${what}, comma-separated or repeated (${values.join(", ")})`);

export const FilterFields = {
  status: listOf(WORK_STATUSES, "statuses"),
  queue: listOf(QUEUE_NAMES, "queues"),
  error_class: listOf(ERROR_CLASSES, "error classes"),
  document_id: z.uuid("must be a document id").optional(),
  session_id: z.uuid("must be a session id").optional(),
  turn_id: z.uuid("must be a turn id").optional(),
  created_after: z.iso.datetime({ offset: true }).optional().describe("created at or after this instant"),
  created_before: z.iso.datetime({ offset: true }).optional().describe("created before this instant"),
};

/** Admin mounts may narrow to one context; per-context mounts take it from the path. */
export const AdminFilterFields = { ...FilterFields, context_id: z.uuid("must be a context id").optional() };

export const ListQuery = z.object({ ...AdminFilterFields, limit: limitParam(100, 500), cursor: cursorParam("time") });

export const RetryQuery = z.object({
  from: z.enum(["failed", "extract"]).default("failed").describe("`extract` runs the subject's extraction again on purpose"),
});

export const RetryManyBody = z.object({
  ...AdminFilterFields,
  dry_run: z.boolean().default(false).describe("count what would be retried, retry nothing"),
  from: z.enum(["failed", "extract"]).default("failed"),
});

export type FilterInput = z.output<z.ZodObject<typeof AdminFilterFields>>;

export function filterOf(input: FilterInput, contextId: string | undefined): WorkItemFilter {
  return {
    contextId: contextId ?? input.context_id,
    statuses: input.status,
    queues: input.queue,
    errorClasses: input.error_class,
    documentId: input.document_id,
    sessionId: input.session_id,
    turnId: input.turn_id,
    createdFrom: input.created_after ? new Date(input.created_after) : undefined,
    createdTo: input.created_before ? new Date(input.created_before) : undefined,
  };
}

export const WorkItemPage = z.object({ work_items: z.array(WorkItemView), next_cursor: NextCursor });

const AttemptView = z.object({
  attempt: z.number().int(),
  status: z.enum(WORK_STATUSES),
  error: z.object({ class: z.string(), message: z.string().nullable() }).nullable(),
  tokens_used: z.number().int().describe("budget this attempt spent"),
  wall_ms: z.number().int().nullable(),
  trace_id: z.string().nullable().describe("the trace this attempt ran in"),
  started_at: Timestamp,
  finished_at: Timestamp.nullable(),
});

export const WorkItemDetail = WorkItemView.extend({
  max_attempts: z.number().int(),
  wall_ms_used: z.number().int(),
  attempt_records: z.array(AttemptView).describe("every try, oldest first"),
});

export function workItemDetail(item: WorkItem & { attemptRecords: WorkAttempt[] }) {
  return {
    ...workItemView(item),
    max_attempts: item.maxAttempts,
    wall_ms_used: item.wallMsUsed,
    attempt_records: item.attemptRecords.map((a) => ({
      attempt: a.attempt,
      status: a.status,
      error: a.errorClass ? { class: a.errorClass, message: a.errorMessage } : null,
      tokens_used: a.tokensUsed,
      wall_ms: a.wallMs,
      trace_id: a.traceId,
      started_at: a.startedAt,
      finished_at: a.finishedAt,
    })),
  };
}

export const RetryManyReport = z.object({
  dry_run: z.boolean(),
  matched: z.number().int().describe("retryable items the filter matches"),
  retried: z.array(WorkItemView),
  skipped: z.array(z.object({ work_item_id: z.uuid(), reason: z.string() })),
});

export const ExtractAgainBody = z.strictObject({
  context_id: z.uuid("must be a context id").optional().describe("only this context's inputs; omitted: every context's"),
  dry_run: z.boolean().default(false).describe("count the inputs and model calls and estimate the cost; queue nothing"),
});

export const ExtractAgainReport = z.object({
  dry_run: z.boolean(),
  matched: z.number().int().describe("inputs awaiting a model that the request matches"),
  inputs: z.number().int().describe("inputs this call takes (at most 1,000, docs/limits.md)"),
  remaining: z.number().int().describe("matched inputs beyond this call's cap: call again for them"),
  by_kind: z.object({ turns: z.number().int(), documents: z.number().int(), other: z.number().int() }),
  model_calls: z
    .object({
      total: z.number().int(),
      windows: z.number().int().describe("a session's turns, grouped in windows as an import groups them"),
      document_chunks: z.number().int(),
      single: z.number().int(),
    })
    .describe("calls of the fast model the run would make (escalations to the strong model not counted)"),
  estimate: z.object({
    model: z.string().nullable().describe("the fast model (provider:model), null when none is configured"),
    input_tokens: z.number().int(),
    output_tokens: z.number().int(),
    cost_usd: z.number().nullable().describe("from RECALL_MODEL_PRICES_JSON; null when the model has no price"),
    priced: z.boolean(),
  }),
  queued: z.number().int().describe("inputs queued in the background lane (0 on a dry run)"),
});
