// The resolution cascade for an extraction plan. Skill: context config → document metadata →
// source metadata → document domain → source domain → source-type map (with "*") → the
// subject's built-in default → env default. Purpose: context config → document metadata →
// source metadata → env default. The first value that names an existing skill wins; a value
// naming a missing skill is traced as not found and the cascade goes on.
import { builtInDefault, skillForDomain } from "./domain-map";
import type { ExtractionPlan, PlanInput, PlanTraceEntry, PurposeSource, SkillSource } from "./plan-types";
import { SkillResolutionError } from "./plan-types";
import { findSkill } from "./skill-finder";
import type { Skill } from "./skill-types";

const SKILL_KEYS = ["extraction_skill", "extraction_skill_id", "skill", "skill_id"];
const DOMAIN_KEYS = ["extraction_domain", "domain", "genre", "content_domain"];
const PURPOSE_KEYS = ["extraction_purpose", "purpose"];

interface Step<S> {
  source: S;
  key?: string;
  value?: string;
  /** The value is a domain to map, not a skill id. */
  domain?: boolean;
}

export function resolveExtractionPlan(input: PlanInput): ExtractionPlan {
  const trace: PlanTraceEntry[] = [];
  const { skill, source } = resolveSkill(input, trace);
  const purpose = resolvePurpose(input, trace);
  return { skill, skillSource: source, ...purpose, trace };
}

function resolveSkill(input: PlanInput, trace: PlanTraceEntry[]): { skill: Skill; source: SkillSource } {
  for (const step of skillSteps(input)) {
    const entry = traceEntry(`skill.${step.source}`, step);
    trace.push(entry);
    if (step.value === undefined) continue;
    const id = step.domain ? (skillForDomain(step.value) ?? (findSkill(input.skills, step.value) ? step.value : undefined)) : step.value;
    if (id === undefined) {
      entry.outcome = "unmapped";
      continue;
    }
    const skill = findSkill(input.skills, id);
    entry.skillId = skill?.id ?? id;
    entry.outcome = skill ? "selected" : "not_found";
    if (skill) return { skill, source: step.source };
  }
  throw new SkillResolutionError(trace);
}

function skillSteps(input: PlanInput): Step<SkillSource>[] {
  return [
    { source: "context_config", ...firstString(input.contextConfig, ["skill"]) },
    { source: "document_metadata", ...firstString(input.documentMetadata, SKILL_KEYS) },
    { source: "source_metadata", ...firstString(input.sourceMetadata, SKILL_KEYS) },
    { source: "document_domain", domain: true, ...firstString(input.documentMetadata, DOMAIN_KEYS) },
    { source: "source_domain", domain: true, ...firstString(input.sourceMetadata, DOMAIN_KEYS) },
    { source: "source_type_map", ...sourceTypeEntry(input) },
    { source: "source_type_default", key: input.subject, value: builtInDefault(input.subject) },
    { source: "env_default", key: "defaultSkill", value: nonEmpty(input.env.defaultSkill) },
  ];
}

function resolvePurpose(input: PlanInput, trace: PlanTraceEntry[]): { purpose?: string; purposeSource?: PurposeSource } {
  const steps: Step<PurposeSource>[] = [
    { source: "context_config", ...firstString(input.contextConfig, ["purpose"]) },
    { source: "document_metadata", ...firstString(input.documentMetadata, PURPOSE_KEYS) },
    { source: "source_metadata", ...firstString(input.sourceMetadata, PURPOSE_KEYS) },
    { source: "env_default", key: "defaultPurpose", value: nonEmpty(input.env.defaultPurpose) },
  ];
  for (const step of steps) {
    const entry = traceEntry(`purpose.${step.source}`, step);
    trace.push(entry);
    if (step.value === undefined) continue;
    entry.outcome = "selected";
    return { purpose: step.value, purposeSource: step.source };
  }
  return {};
}

/** A trace entry that names a key and value only when the step found one (undefined does not survive JSON). */
function traceEntry(step: string, found: { key?: string; value?: string }): PlanTraceEntry {
  return found.value === undefined ? { step, outcome: "absent" } : { step, key: found.key, value: found.value, outcome: "absent" };
}

/** The source type's entry in the env map, else the document format's, else its "*" fallback. */
function sourceTypeEntry(input: PlanInput): { key?: string; value?: string } {
  const map = input.env.skillBySourceType ?? {};
  const entry = (type: string | undefined) =>
    type ? (Object.keys(map).find((k) => k === type) ?? Object.keys(map).find((k) => k.toLowerCase() === type.toLowerCase())) : undefined;
  const key = entry(input.sourceType?.trim()) ?? entry(input.format?.trim()) ?? ("*" in map ? "*" : undefined);
  return key === undefined ? {} : { key, value: nonEmpty(map[key]) };
}

function firstString(record: Record<string, unknown> | null | undefined, keys: string[]): { key?: string; value?: string } {
  for (const key of keys) {
    const value = nonEmpty(record?.[key]);
    if (value !== undefined) return { key, value };
  }
  return {};
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}
