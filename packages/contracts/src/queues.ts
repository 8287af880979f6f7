// The job catalog: for each queue, the payload its jobs carry and the result its work item
// keeps. The queue registry (packages/pipeline) adds attempts and backoff to these.
import { z } from "zod";
import { CommitResult, ExtractResult, TruthMaintenanceResult, WindowResult } from "./stage-results";

/**
 * `window`: consecutive asynchronous turns of a session extracted by one model call (extract_window).
 * `review`: approved reviews of one input, committed after the input's own commit (a review_commits row).
 * `batch`: the turns of one history import (a turn_batches row), read by the rules in one extract_assertions job.
 */
export const SubjectType = z.enum(["document", "turn", "fact_write", "window", "review", "batch"]);
export type SubjectType = z.infer<typeof SubjectType>;

/** Every stage's job carries the same small payload; the work item row holds the rest. */
export const StagePayload = z.object({
  workItemId: z.string().uuid(),
  contextId: z.string().uuid(),
  subjectType: SubjectType,
  subjectId: z.string().uuid(),
  trace: z.record(z.string(), z.string()).default({}),
});
export type StagePayload = z.infer<typeof StagePayload>;

/** validate_artifacts keeps its findings on the candidates themselves; its work item holds nothing. */
export const ValidateResult = z.object({});

export const JOB_CATALOG = {
  extract_assertions: { input: StagePayload, result: ExtractResult },
  validate_artifacts: { input: StagePayload, result: ValidateResult },
  commit_artifacts: { input: StagePayload, result: CommitResult },
  truth_maintenance: { input: StagePayload, result: TruthMaintenanceResult },
  extract_window: { input: StagePayload, result: WindowResult },
} as const;

export type QueueName = keyof typeof JOB_CATALOG;
/**
 * What a work item of queue Q keeps of its stage's run, on its payload. Not to be confused with what a processor answers
 * (`StageResult`, @recall/pipeline) or the part of that it keeps (`StageOutput`, which becomes this).
 */
export type ItemResult<Q extends QueueName> = z.infer<(typeof JOB_CATALOG)[Q]["result"]>;

/**
 * The result a work item of this queue holds. A payload that does not parse (written by an
 * older version, or hand-edited) reads as the empty result, which every reader treats as
 * "nothing recorded yet" rather than failing a status page.
 */
export function itemResult<Q extends QueueName>(queue: Q, payload: unknown): ItemResult<Q> {
  const schema = JOB_CATALOG[queue].result;
  const parsed = schema.safeParse(payload ?? {});
  return (parsed.success ? parsed.data : schema.parse({})) as ItemResult<Q>;
}

/**
 * Whether a truth-maintenance item's supersession and conflicts were applied (checkpointed): the input
 * is committed from then on, and a retry only embeds. The SQL twin is the pipeline's MAINTAINED_ITEM_SQL.
 */
export function truthMaintained(item: { queue?: string; payload: unknown }): boolean {
  if (item.queue !== undefined && item.queue !== "truth_maintenance") return false;
  return itemResult("truth_maintenance", item.payload).truth_maintained_at !== undefined;
}
