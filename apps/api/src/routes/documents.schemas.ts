// Request and response shapes of the document routes.
import { z } from "zod";
import { ScopeList } from "../http/scope-schema";
import { Timestamp } from "../views/work-item-view";

const MAX_DOCUMENT_BYTES = 5 * 1024 * 1024;

export const CreateDocumentBody = z.object({
  text: z
    .string()
    .min(1, "must not be empty")
    .refine((t) => Buffer.byteLength(t) <= MAX_DOCUMENT_BYTES, "must be at most 5 MiB"),
  scope: ScopeList.optional().describe("the document's scope; what it teaches is visible to readers whose scope includes it"),
  metadata: z.looseObject({ scope: ScopeList.optional() }).optional(),
  source: z
    .object({
      type: z.string().trim().min(1).max(100),
      name: z.string().max(500).optional(),
      external_id: z.string().max(500).optional(),
      metadata: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
});
export type CreateDocumentBody = z.infer<typeof CreateDocumentBody>;

export const DocumentAccepted = z.object({
  document_id: z.uuid(),
  trace_id: z.string(),
  queued: z.boolean().describe("false when Redis did not answer; the sweeper queues it later"),
});

const StageView = z.object({
  queue: z.string(),
  status: z.string(),
  attempts: z.number().int(),
  started_at: Timestamp.nullable(),
  finished_at: Timestamp.nullable(),
  work_item_id: z.uuid().optional(),
  tokens_used: z.number().int().optional(),
  error: z.object({ class: z.string(), message: z.string().nullable() }).optional(),
});

export const DocumentStatus = z.object({
  document_id: z.uuid(),
  trace_id: z.string(),
  state: z.enum(["queued", "processing", "committed", "failed"]),
  stages: z.array(StageView),
  extraction_plan: z
    .object({
      skill: z.string(),
      skill_source: z.string(),
      purpose: z.string().nullable(),
      purpose_source: z.string().nullable(),
      trace: z.unknown(),
    })
    .nullable(),
  candidates: z.object({
    total: z.number().int(),
    committed: z.number().int(),
    invalid: z.number().int(),
    invalid_details: z.array(z.object({ ordinal: z.number().int(), kind: z.string(), errors: z.unknown() })),
  }),
});
