// The extraction plan: which skill and purpose apply to a subject, and why. Resolved on every
// extraction (config may have changed since an earlier attempt), written only when it differs
// from the plan the claim read, in the transaction that stages the candidates.
import type { Config } from "@recall/config";
import type { ContextConfig } from "@recall/contracts";
import { toJson, type DbOrTx, type Prisma } from "@recall/db";
import { resolveExtractionPlan, type BudgetLimits, type ExtractionGuidance } from "@recall/extraction";
import type { ClaimedPlan } from "@recall/pipeline";
import type { WorkerDeps } from "../deps";
import type { Subject } from "./subject-loader";

export interface ResolvedPlan {
  guidance: ExtractionGuidance;
  row: Omit<Prisma.ExtractionPlanUncheckedCreateInput, "subjectType" | "subjectId">;
  subject: Pick<Subject, "type" | "id">;
}

export function resolvePlan(deps: Pick<WorkerDeps, "config" | "skillList">, subject: Subject): ResolvedPlan {
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
  return {
    guidance: { skillId: plan.skill.id, skillBody: plan.skill.body, purpose: plan.purpose },
    row: {
      contextId: subject.contextId,
      skillId: plan.skill.id,
      skillSource: plan.skillSource,
      purpose: plan.purpose ?? null,
      purposeSource: plan.purposeSource ?? null,
      trace: toJson(plan.trace),
    },
    subject: { type: subject.type, id: subject.id },
  };
}

/** Whether the plan recorded for the subject (read by the claim) is this one already. */
export function planRecorded(resolved: ResolvedPlan, stored: ClaimedPlan | null): boolean {
  const { row } = resolved;
  return (
    stored !== null &&
    stored.skillId === row.skillId &&
    stored.skillSource === row.skillSource &&
    stored.purpose === row.purpose &&
    stored.purposeSource === row.purposeSource &&
    canonical(stored.trace) === canonical(row.trace)
  );
}

export async function writePlan(db: DbOrTx, resolved: ResolvedPlan): Promise<void> {
  const { row, subject } = resolved;
  await db.extractionPlan.upsert({
    where: { subjectType_subjectId: { subjectType: subject.type, subjectId: subject.id } },
    create: { ...row, subjectType: subject.type, subjectId: subject.id },
    update: row,
  });
}

/**
 * Records the plans of many subjects that changed (a batch's turns): the first plans in one statement, changed ones
 * one by one.
 */
export async function writePlans(db: DbOrTx, plans: { resolved: ResolvedPlan; stored: ClaimedPlan | null }[]): Promise<void> {
  const changed = plans.filter((p) => !planRecorded(p.resolved, p.stored));
  const first = changed
    .filter((p) => p.stored === null)
    .map(({ resolved: { row, subject } }) => ({ ...row, subjectType: subject.type, subjectId: subject.id }));
  if (first.length > 0) await db.extractionPlan.createMany({ data: first, skipDuplicates: true });
  for (const p of changed) if (p.stored !== null) await writePlan(db, p.resolved);
}

/** JSON with object keys sorted: jsonb does not keep the order they were written in. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v,
  );
}

/** The lower of the service's limits and the context's own (`config.max_tokens`, `config.max_wall_ms`). */
export function budgetLimits(config: Config, contextConfig: ContextConfig): BudgetLimits {
  const lower = (service: number, own: number | undefined) => (own === undefined ? service : Math.min(service, own));
  return {
    maxTokens: lower(config.RECALL_MAX_TOKENS, contextConfig.max_tokens),
    maxWallMs: lower(config.RECALL_MAX_WALL_MS, contextConfig.max_wall_ms),
  };
}
