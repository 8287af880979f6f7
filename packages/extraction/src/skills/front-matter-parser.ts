// The front matter of a SKILL.md: YAML between `---` fences, read by the `yaml` library. Skills
// also write lists on one line (`aliases: chat, dialogue`), which YAML reads as one string; the
// keys that hold lists split such a string at commas.
import { SetupError } from "@recall/contracts";
import { parse as parseYaml, YAMLParseError } from "yaml";

export interface ParsedSkillFile {
  fields: Record<string, unknown>;
  body: string;
}

export class FrontMatterError extends SetupError {
  constructor(message: string) {
    super(message);
    this.name = "FrontMatterError";
  }
}

const FENCE = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/**
 * Splits a SKILL.md into front matter fields and the markdown body. Without front matter, all
 * of it is body. Throws FrontMatterError when the block is not YAML or not a mapping.
 */
export function parseSkillFile(text: string): ParsedSkillFile {
  const clean = text.replace(/^\uFEFF/, "");
  const match = FENCE.exec(clean);
  if (!match) return { fields: {}, body: clean.trim() };
  return { fields: normalise(readYaml(match[1] ?? "")), body: clean.slice(match[0].length).trim() };
}

function readYaml(block: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = parseYaml(block);
  } catch (err) {
    if (err instanceof YAMLParseError) throw new FrontMatterError(`front matter is not YAML: ${err.message.split("\n")[0]}`);
    throw err;
  }
  if (value === null || value === undefined) return {};
  if (typeof value !== "object" || Array.isArray(value)) throw new FrontMatterError("front matter is not a mapping of keys to values");
  return value as Record<string, unknown>;
}

const LIST_KEYS = new Set(["aliases", "entity_types", "key_predicates", "single_valued"]);

/** Keys are matched case-blind with `-` read as `_`; scalars become strings; an empty key is an empty list. */
function normalise(raw: Record<string, unknown>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(raw)) {
    const key = name.toLowerCase().replace(/-/g, "_");
    fields[key] = readValue(key, value);
  }
  return fields;
}

function readValue(key: string, value: unknown): unknown {
  if (value === null) return [];
  if (Array.isArray(value)) return value.map(scalar).filter((v) => v.length > 0);
  if (typeof value === "object") return value; // the schema names it as invalid
  const text = scalar(value);
  return LIST_KEYS.has(key) ? splitList(text) : text;
}

function scalar(value: unknown): string {
  return typeof value === "string" ? value.trim() : String(value);
}

function splitList(value: string): string[] {
  return value
    .split(",")
    .map((v) =>
      v
        .trim()
        .replace(/^(["'])(.*)\1$/, "$2")
        .trim(),
    )
    .filter((v) => v.length > 0);
}
