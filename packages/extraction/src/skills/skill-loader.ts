// Skills are SKILL.md files under a skills directory; the id is the folder path
// relative to the root (e.g. extraction/technical-docs). A small front matter names
// the entity types and predicates; the body is guidance given to model stages.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";

export interface Skill {
  id: string;
  entityTypes: string[];
  keyPredicates: string[];
  singleValued: string[];
  body: string;
}

function list(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

export function parseSkill(id: string, markdown: string): Skill {
  const match = /^---\n([\s\S]*?)\n---\n?([\s\S]*)$/.exec(markdown);
  const fields = new Map<string, string>();
  for (const line of (match?.[1] ?? "").split("\n")) {
    const at = line.indexOf(":");
    if (at > 0) fields.set(line.slice(0, at).trim(), line.slice(at + 1).trim());
  }
  return {
    id: fields.get("id") ?? id,
    entityTypes: list(fields.get("entity_types")),
    keyPredicates: list(fields.get("key_predicates")),
    singleValued: list(fields.get("single_valued")),
    body: (match ? match[2]! : markdown).trim(),
  };
}

export async function loadSkills(dir: string): Promise<Skill[]> {
  const skills: Skill[] = [];
  async function walk(current: string): Promise<void> {
    const entries = await readdir(current, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.name === "SKILL.md")
        skills.push(parseSkill(path.relative(dir, current).split(path.sep).join("/"), await readFile(full, "utf8")));
    }
  }
  await walk(dir);
  return skills.sort((a, b) => a.id.localeCompare(b.id));
}

/** Normalised id: case, `_`/`-`/spaces and an optional `extraction/` prefix do not matter. */
export function normaliseSkillId(id: string): string {
  return id
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, "-")
    .replace(/^\/+|\/+$/g, "")
    .replace(/^extraction\//, "");
}

export function findSkill(skills: readonly Skill[], id: string): Skill | undefined {
  const wanted = normaliseSkillId(id);
  return skills.find((s) => normaliseSkillId(s.id) === wanted);
}
