// A context's `config` (POST /contexts): one schema for what is stored, checked when a context is
// created and read back through it. Keys it does not name are kept as given (skills may read
// their own).
import { z } from "zod";

const REVIEW_CATEGORIES = ["identity", "knowledge", "context"] as const;
const REVIEW_KINDS = ["entity", "attribute", "relation", "instruction", "uncertainty", "revocation"] as const;

/**
 * Which extracted candidates wait for a person's decision before they become memory (docs/review.md). "required":
 * all of them. An object: those matching every part it sets (categories: the candidate's memory_category; kinds:
 * its kind; scope: the input's scope holds every pair). Direct writes (POST /facts) and imports are never held.
 */
export const ReviewRule = z.union([
  z.literal("required"),
  z
    .object({
      categories: z.array(z.enum(REVIEW_CATEGORIES)).min(1).max(REVIEW_CATEGORIES.length).optional(),
      kinds: z.array(z.enum(REVIEW_KINDS)).min(1).max(REVIEW_KINDS.length).optional(),
      scope: z
        .record(z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "a scope key: letters, digits, _ . -"), z.string().min(1).max(256))
        .refine((s) => Object.keys(s).length <= 16, "at most 16 scope pairs")
        .optional(),
    })
    .strict(),
]);
export type ReviewRule = z.infer<typeof ReviewRule>;

export const ContextConfig = z.looseObject({
  require_scope: z
    .boolean()
    .optional()
    .describe("true: every write (turn, batch, document, direct write) must carry a scope; one without answers 400"),
  max_tokens: z.number().int().positive().optional().describe("model tokens one work item may spend (at most RECALL_MAX_TOKENS)"),
  max_wall_ms: z.number().int().positive().optional().describe("wall time one work item may take (at most RECALL_MAX_WALL_MS)"),
  skill: z.string().min(1).optional().describe("the skill that extracts this context's inputs"),
  purpose: z.string().min(1).optional().describe("what this memory is for, told to the model"),
  review: ReviewRule.optional().describe(
    'hold extracted candidates for approval before they become memory: "required", or {"categories": ["identity"], "kinds": [...], "scope": {"user": "alice"}} (docs/review.md)',
  ),
});
export type ContextConfig = z.infer<typeof ContextConfig>;

/**
 * The stored config as the schema reads it, parsed once where a context is loaded. A key whose stored value the
 * schema refuses (a row written before the key was checked) reads as not set; the other keys stand.
 */
export function contextConfigOf(stored: unknown): ContextConfig {
  if (!stored || typeof stored !== "object" || Array.isArray(stored)) return {};
  const parsed = ContextConfig.safeParse(stored);
  if (parsed.success) return parsed.data;
  const refused = new Set(parsed.error.issues.map((issue) => String(issue.path[0])));
  const kept = Object.fromEntries(Object.entries(stored).filter(([key]) => !refused.has(key)));
  return ContextConfig.safeParse(kept).data ?? {};
}
