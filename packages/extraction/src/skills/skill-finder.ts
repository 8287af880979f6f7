// Finds a skill by a loosely written id: case, "_"/"-"/spaces and the "extraction/" prefix
// do not matter, so "Technical Docs", "technical_docs" and "extraction/technical-docs" agree.
import type { Skill } from "./skill-types";

export function normaliseSkillId(id: string): string {
  return id
    .trim()
    .toLowerCase()
    .replace(/\\/g, "/")
    .replace(/\/?skill\.md$/, "")
    .replace(/\s*\/\s*/g, "/")
    .replace(/^(?:\.\/|\/)+|\/+$/g, "")
    .replace(/[\s_]+/g, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^extraction\//, "");
}

export function findSkill(skills: readonly Skill[], id: string): Skill | undefined {
  const wanted = normaliseSkillId(id);
  if (wanted === "") return undefined;
  return skills.find((s) => normaliseSkillId(s.id) === wanted) ?? skills.find((s) => s.aliases.some((a) => normaliseSkillId(a) === wanted));
}
