// The extraction plan: which skill and purpose apply to a subject, and why.
import type { Config } from "@recall/config";
import { toJson } from "@recall/db";
import { resolveExtractionPlan, type BudgetLimits, type ExtractionGuidance } from "@recall/extraction";
import type { WorkerDeps } from "../deps";
import type { Subject } from "./subject-loader";

export async function ensurePlan(deps: WorkerDeps, subject: Subject): Promise<ExtractionGuidance> {
  const plan = resolveExtractionPlan({
    contextConfig: subject.contextConfig,
    documentMetadata: subject.metadata,
    sourceMetadata: subject.sourceMetadata,
    sourceType: subject.sourceType,
    format: subject.format,
    env: {
      skillBySourceType: deps.config.PIPELINE_SKILL_BY_SOURCE_TYPE_JSON,
      defaultSkill: deps.config.PIPELINE_DEFAULT_EXTRACTION_SKILL,
      defaultPurpose: deps.config.PIPELINE_DEFAULT_EXTRACTION_PURPOSE,
    },
    skills: deps.skillList,
    subject: subject.type,
  });
  const data = {
    contextId: subject.contextId,
    skillId: plan.skill.id,
    skillSource: plan.skillSource,
    purpose: plan.purpose ?? null,
    purposeSource: plan.purposeSource ?? null,
    trace: toJson(plan.trace),
  };
  await deps.db.extractionPlan.upsert({
    where: { subjectType_subjectId: { subjectType: subject.type, subjectId: subject.id } },
    create: { ...data, subjectType: subject.type, subjectId: subject.id },
    update: data,
  });
  return { skillId: plan.skill.id, skillBody: plan.skill.body, purpose: plan.purpose };
}

/** The lower of the service's limits and the context's own (`config.max_tokens`, `config.max_wall_ms`). */
export function budgetLimits(config: Config, contextConfig: Record<string, unknown>): BudgetLimits {
  const lower = (service: number, own: unknown) => (typeof own === "number" && own > 0 ? Math.min(service, own) : service);
  return {
    maxTokens: lower(config.RECALL_MAX_TOKENS, contextConfig.max_tokens),
    maxWallMs: lower(config.RECALL_MAX_WALL_MS, contextConfig.max_wall_ms),
  };
}
