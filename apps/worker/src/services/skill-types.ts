// What a subject's chosen skill says about entity types and single-valued predicates.
import { DEFAULT_SINGLE_VALUED, normaliseType } from "@recall/memory";
import type { WorkerDeps } from "../deps";

async function planSkill(deps: WorkerDeps, subjectType: string, subjectId: string) {
  const plan = await deps.db.extractionPlan.findUnique({ where: { subjectType_subjectId: { subjectType, subjectId } } });
  return plan ? deps.skills.get(plan.skillId) : undefined;
}

/** Entity types the skill names (topic is always allowed); undefined accepts any. */
export async function allowedEntityTypes(deps: WorkerDeps, subjectType: string, subjectId: string): Promise<Set<string> | undefined> {
  const skill = await planSkill(deps, subjectType, subjectId);
  if (!skill || skill.entityTypes.length === 0) return undefined;
  return new Set(skill.entityTypes.map(normaliseType));
}

export async function singleValuedPredicates(deps: WorkerDeps, subjectType: string, subjectId: string): Promise<Set<string>> {
  const skill = await planSkill(deps, subjectType, subjectId);
  return new Set([...DEFAULT_SINGLE_VALUED, ...(skill?.singleValued ?? [])]);
}
