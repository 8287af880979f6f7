// What a subject's chosen skill (its extraction plan, read by the claim) says about entity
// types and single-valued predicates.
import { DEFAULT_SINGLE_VALUED, normaliseType } from "@recall/memory";
import type { ClaimedPlan } from "@recall/pipeline";
import type { WorkerDeps } from "../deps";

function planSkill(deps: Pick<WorkerDeps, "skills">, plan: ClaimedPlan | null) {
  return plan ? deps.skills.get(plan.skillId) : undefined;
}

/** Entity types the skill names (topic is always allowed); undefined accepts any. */
export function allowedEntityTypes(deps: Pick<WorkerDeps, "skills">, plan: ClaimedPlan | null): Set<string> | undefined {
  const skill = planSkill(deps, plan);
  if (!skill || skill.entityTypes.length === 0) return undefined;
  return new Set(skill.entityTypes.map(normaliseType));
}

export function singleValuedPredicates(deps: Pick<WorkerDeps, "skills">, plan: ClaimedPlan | null): Set<string> {
  const skill = planSkill(deps, plan);
  return new Set([...DEFAULT_SINGLE_VALUED, ...(skill?.singleValued ?? [])]);
}
