// A small reader for the YAML-ish front matter of SKILL.md files. It understands what skills
// use: `key: value`, `key: a, b, c`, `key: [a, b]` and block lists of `- item` lines.

export interface ParsedSkillFile {
  fields: Record<string, string | string[]>;
  body: string;
}

const FENCE = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** Splits a SKILL.md into front matter fields and the markdown body. Without front matter, all of it is body. */
export function parseSkillFile(text: string): ParsedSkillFile {
  const clean = text.replace(/^\uFEFF/, "");
  const match = FENCE.exec(clean);
  if (!match) return { fields: {}, body: clean.trim() };
  return { fields: parseFields(match[1] ?? ""), body: clean.slice(match[0].length).trim() };
}

function parseFields(block: string): Record<string, string | string[]> {
  const fields: Record<string, string | string[]> = {};
  let listKey: string | undefined;
  for (const raw of block.split(/\r?\n/)) {
    const line = raw.replace(/\s+#.*$/, "");
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    const item = /^\s*-\s+(.*)$/.exec(line);
    if (item && listKey) {
      (fields[listKey] as string[]).push(unquote(item[1] ?? ""));
      continue;
    }
    const pair = /^([A-Za-z][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (!pair) continue;
    const key = (pair[1] ?? "").toLowerCase().replace(/-/g, "_");
    const value = (pair[2] ?? "").trim();
    listKey = value === "" ? key : undefined;
    fields[key] = value === "" ? [] : readValue(key, value);
  }
  return fields;
}

const LIST_KEYS = new Set(["aliases", "entity_types", "key_predicates", "single_valued"]);

function readValue(key: string, value: string): string | string[] {
  if (value.startsWith("[") && value.endsWith("]")) return splitList(value.slice(1, -1));
  return LIST_KEYS.has(key) ? splitList(value) : unquote(value);
}

function splitList(value: string): string[] {
  return value
    .split(",")
    .map(unquote)
    .filter((v) => v.length > 0);
}

function unquote(value: string): string {
  return value
    .trim()
    .replace(/^(["'])(.*)\1$/, "$2")
    .trim();
}
