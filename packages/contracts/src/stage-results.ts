// What each stage leaves on its work item (`work_items.payload`) for the next stage, for
// retries and for readers (turn answers, document status). Written and read through these
// schemas only; the column is JSON, so nothing else guarantees its shape.
import { z } from "zod";
import { Stage } from "./diff";

/** Which stage finished one text unit of an extraction (a turn, or a document node) and why. */
export const UnitOutcome = z.object({
  node_id: z.string().nullable(),
  stage: Stage,
  model: z.string().nullable(),
  reason: z.string(),
  tokens_used: z.number(),
  /** Read in a window: the window's tokens for its one call (metered on the window's work item). */
  window_tokens: z.number().optional(),
  /** The rules' sure part only: the rest needs a model none is configured for (the item is `awaiting_model`). */
  awaiting_model: z.boolean().optional(),
});
export type UnitOutcome = z.infer<typeof UnitOutcome>;

/** extract_assertions: the outcome per unit; on failure, the unit and stage it stopped at. */
export const ExtractResult = z.object({
  outcomes: z.array(UnitOutcome).default([]),
  failed: z.object({ node_id: z.string().nullable(), stage: Stage.nullable() }).optional(),
  /** A turn posted with wait: false or in a batch: extracted in a window of its session (see extract_window). */
  mode: z.enum(["interactive", "windowed"]).optional(),
  window_id: z.string().optional(),
  /** Why no window could read the turn, when it was handed back to the one-turn path. */
  window_failure: z.string().optional(),
  /** A turn of a history import: the batch whose job reads it (until it leaves the batch). */
  batch_id: z.string().optional(),
  /** On a batch's own item: how its job placed the turns it read. */
  batch: z
    .object({
      turns: z.number().int(),
      /** The rules finished them: staged, and on to their own validation. */
      finished: z.number().int(),
      /** Handed to windows of their session, for one model call per window. */
      windowed: z.number().int(),
      /** Left the batch to run alone (an ambiguous name, or the rules failed on them). */
      alone: z.number().int(),
    })
    .optional(),
});
export type ExtractResult = z.infer<typeof ExtractResult>;

/** extract_window: nothing beyond its own bookkeeping; its turns' items hold their outcomes. */
export const WindowResult = z.object({});
export type WindowResult = z.infer<typeof WindowResult>;

/** entityId null: none of the offered entities is meant, a new one is created. */
export const DisambiguationDecision = z.object({ entityId: z.string().nullable(), reason: z.string() });
export type DisambiguationDecision = z.infer<typeof DisambiguationDecision>;

/** commit_artifacts: the disambiguator's answers by name key, checkpointed so a re-run asks nothing twice. */
export const CommitResult = z.object({
  disambiguations: z.record(z.string(), DisambiguationDecision).default({}),
});
export type CommitResult = z.infer<typeof CommitResult>;

/** truth_maintenance: set once supersession and conflicts are applied, so a retry only embeds. */
/**
 * `truth_maintained_at`: the input is in memory (what "committed" reads). A versioned document's facts are placed
 * first (`facts_placed_at`, so a retry does not place them again) and it is maintained once its previous version retired.
 */
export const TruthMaintenanceResult = z.object({ truth_maintained_at: z.string().optional(), facts_placed_at: z.string().optional() });
export type TruthMaintenanceResult = z.infer<typeof TruthMaintenanceResult>;

/** The outbox event a commit writes in its own transaction: what it wrote, for truth maintenance. */
export const CommittedRefs = z.object({
  subjectType: z.string().optional(),
  subjectId: z.string().optional(),
  /** The source's scope set (scope_sets.id as a string; null when unscoped), which a revocation is made in. */
  scopeSetId: z.string().nullable().optional(),
  /** Written by commits before scope sets (20261207): the pairs themselves. Still read, never written. */
  scope: z.array(z.string()).optional(),
  turnId: z.string().optional(),
  attributeIds: z.array(z.string()).optional(),
  relationIds: z.array(z.string()).optional(),
  instructionIds: z.array(z.string()).optional(),
  revocationCandidateIds: z.array(z.string()).optional(),
  /** The source was deleted before the commit ran; nothing was written. */
  retracted: z.boolean().optional(),
  /**
   * What earlier passes of this commit produced, oldest first: an input the rules committed in part and that was
   * extracted again once a model was set commits the rest as a later pass. The fields above are the latest pass's,
   * which truth maintenance applies.
   */
  earlier: z.array(z.record(z.string(), z.unknown())).optional(),
});
export type CommittedRefs = z.infer<typeof CommittedRefs>;
