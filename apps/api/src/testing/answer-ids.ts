// Test support for idempotency.e2e.test.ts: an answer built from a published JSON Schema with a fresh UUID under every
// key that names ids, so a test can ask whether inputIdsOf finds every id an idempotent route's answer may carry.
import { randomUUID } from "node:crypto";

type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  additionalProperties?: JsonSchema | boolean;
};

export interface SampleAnswer {
  body: unknown;
  /** The ids placed in it, with where: `turns[].turn_id`. */
  ids: Map<string, string>;
}

/** One answer with every property of every branch filled (branches merged), ids fresh under `_id` / `_ids` keys. */
export function sampleAnswer(schema: JsonSchema, components: Record<string, JsonSchema>): SampleAnswer {
  const ids = new Map<string, string>();
  const resolve = (s: JsonSchema): JsonSchema => (s.$ref ? resolve(components[s.$ref.split("/").pop()!] ?? {}) : s);
  const fill = (raw: JsonSchema, path: string, depth: number, idKey: "one" | "many" | undefined): unknown => {
    const s = resolve(raw);
    if (depth > 12) return null;
    const branches = [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])].map(resolve);
    const properties = { ...s.properties, ...Object.assign({}, ...branches.map((b) => b.properties ?? {})) } as Record<string, JsonSchema>;
    const items = s.items ?? branches.find((b) => b.items)?.items;
    if (Object.keys(properties).length > 0) {
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(properties)) {
        const kind = /_ids$/.test(key) ? "many" : /_id$/.test(key) ? "one" : undefined;
        out[key] = fill(child, path ? `${path}.${key}` : key, depth + 1, kind);
      }
      return out;
    }
    if (items) return [fill(items, `${path}[]`, depth + 1, idKey === "many" ? "one" : idKey)];
    if (idKey === "one" && typesOf(s, branches).includes("string")) {
      const id = randomUUID();
      ids.set(id, path);
      return id;
    }
    return null;
  };
  return { body: fill(schema, "", 0, undefined), ids };
}

const typesOf = (s: JsonSchema, branches: JsonSchema[]) => [s.type, ...branches.map((b) => b.type)].flat().filter(Boolean);
