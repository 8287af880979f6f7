// Which extracted candidates wait for a person (context config `review`, docs/review.md). Decided at the commit
// stage, before the commit plans anything, so a held candidate costs no disambiguation call until it is approved.
import { candidatePayload, type ReviewRule } from "@recall/contracts";
import type { KnowledgeCandidate } from "@recall/db";
import { normaliseScope } from "../core/scope";

export interface ReviewSplit {
  /** Committed now. */
  commit: KnowledgeCandidate[];
  /** Held as pending reviews. */
  hold: KnowledgeCandidate[];
}

/** Splits an input's valid candidates. Direct writes (stage `direct`) are the application's own statement: never held. */
export function splitForReview(candidates: KnowledgeCandidate[], rule: ReviewRule | undefined, inputScope: readonly string[]): ReviewSplit {
  if (!rule || !appliesToScope(rule, inputScope)) return { commit: candidates, hold: [] };
  const split: ReviewSplit = { commit: [], hold: [] };
  for (const c of candidates) (c.stage !== "direct" && matches(rule, c) ? split.hold : split.commit).push(c);
  return split;
}

function appliesToScope(rule: ReviewRule, inputScope: readonly string[]): boolean {
  if (rule === "required" || !rule.scope) return true;
  const have = new Set(normaliseScope(inputScope));
  return Object.entries(rule.scope).every(([key, value]) => have.has(`${key}=${value}`));
}

function matches(rule: ReviewRule, candidate: KnowledgeCandidate): boolean {
  if (rule === "required") return true;
  if (rule.kinds && !rule.kinds.includes(candidate.kind)) return false;
  if (!rule.categories) return true;
  const category = categoryOf(candidate);
  return category !== undefined && rule.categories.includes(category);
}

/** The memory category of an entity, attribute or relation candidate; the other kinds have none. */
export function categoryOf(candidate: Pick<KnowledgeCandidate, "kind" | "payload">): "identity" | "knowledge" | "context" | undefined {
  if (candidate.kind !== "entity" && candidate.kind !== "attribute" && candidate.kind !== "relation") return undefined;
  return candidatePayload(candidate.kind, candidate.payload).memory_category;
}
