import { findSkill, type Skill } from "@recall/extraction";
import type { SkillCatalog } from "../deps";

export function skillCatalog(skills: readonly Skill[]): SkillCatalog {
  return { get: (id) => findSkill(skills, id) };
}
