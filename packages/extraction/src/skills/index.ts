export { loadSkills, skillFromText, DEFAULT_SKILLS_DIR } from "./skill-loader";
export { findSkill, normaliseSkillId } from "./skill-finder";
export { resolveExtractionPlan } from "./plan-resolver";
export { skillForDomain, builtInDefault } from "./domain-map";
export { SkillLoadError, WILDCARD_ENTITY_TYPE, type Skill } from "./skill-types";
export {
  SkillResolutionError,
  type ExtractionPlan,
  type PlanEnv,
  type PlanInput,
  type PlanSubject,
  type PlanTraceEntry,
  type PurposeSource,
  type SkillSource,
} from "./plan-types";
