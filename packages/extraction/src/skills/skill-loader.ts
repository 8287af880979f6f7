// Loads every SKILL.md under a skills root. A skill's id is its directory relative to the root.
import { promises as fs } from "node:fs";
import path from "node:path";
import { FrontMatterError, parseSkillFile, type ParsedSkillFile } from "./front-matter-parser";
import { SkillFrontMatter, SkillLoadError, WILDCARD_ENTITY_TYPE, type Skill } from "./skill-types";

/** The repository's own skills folder (`skills/` at the repo root). */
export const DEFAULT_SKILLS_DIR = path.resolve(__dirname, "../../../../skills");

const SKILL_FILE = "SKILL.md";

export async function loadSkills(dir: string = DEFAULT_SKILLS_DIR): Promise<Skill[]> {
  const root = path.resolve(dir);
  const stat = await fs.stat(root).catch(() => undefined);
  if (!stat?.isDirectory()) throw new SkillLoadError("skills directory not found", root);
  // A SKILL.md at the root itself has no id, so it is not a skill.
  const files = (await skillFiles(root)).filter((file) => path.dirname(file) !== root);
  const skills = await Promise.all(files.map((file) => readSkill(root, file)));
  return skills.sort((a, b) => a.id.localeCompare(b.id));
}

/** Parses one SKILL.md given its text; exported for tests and for callers holding the text already. */
export function skillFromText(id: string, text: string, file: string): Skill {
  const { fields, body } = parseOrReport(text, file);
  const parsed = SkillFrontMatter.safeParse(fields);
  if (!parsed.success)
    throw new SkillLoadError(`invalid front matter: ${parsed.error.issues.map((i) => i.path.join(".")).join(", ")}`, file);
  const meta = parsed.data;
  const entityTypes = unique([...meta.entity_types, WILDCARD_ENTITY_TYPE]);
  const aliases = unique([...meta.aliases, ...(meta.id && meta.id !== id ? [meta.id] : [])]);
  return {
    id,
    name: meta.name ?? id.split("/").pop() ?? id,
    description: meta.description,
    entityTypes,
    keyPredicates: unique(meta.key_predicates),
    singleValued: unique(meta.single_valued),
    aliases,
    body,
    path: file,
  };
}

function parseOrReport(text: string, file: string): ParsedSkillFile {
  try {
    return parseSkillFile(text);
  } catch (err) {
    if (err instanceof FrontMatterError) throw new SkillLoadError(err.message, file);
    throw err;
  }
}

async function readSkill(root: string, file: string): Promise<Skill> {
  const id = path.relative(root, path.dirname(file)).split(path.sep).join("/");
  return skillFromText(id, await fs.readFile(file, "utf8"), file);
}

async function skillFiles(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.filter((e) => e.isDirectory() && !e.name.startsWith(".")).map((e) => skillFiles(path.join(dir, e.name))),
  );
  const here = entries.some((e) => e.isFile() && e.name === SKILL_FILE) ? [path.join(dir, SKILL_FILE)] : [];
  return [...here, ...nested.flat()];
}

function unique(values: string[]): string[] {
  return [...new Set(values.map((v) => v.trim()).filter((v) => v.length > 0))];
}
