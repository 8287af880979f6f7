// Every id an event's data can hold is one erasure knows (WEBHOOK_ID_KEYS): read from every emitter, the SQL functions
// of the migrated database and the code that calls recall_webhook_emit, so a new key fails here before it can survive
// an erasure.
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { Client } from "pg";
import { SubjectType, WEBHOOK_EVENT_TYPES, WEBHOOK_ID_KEYS } from "@recall/contracts";
import { createTestDatabase } from "@recall/test-support";

const ROOT = path.resolve(__dirname, "../../../..");

/** The bodies of the SQL functions that raise events, as the migrated database holds them. */
async function emitterFunctions(): Promise<string[]> {
  const database = await createTestDatabase();
  const client = new Client({ connectionString: database.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ def: string }>(
      "SELECT pg_get_functiondef(oid) AS def FROM pg_proc WHERE proname LIKE 'recall_webhook%'",
    );
    return rows.map((r) => r.def);
  } finally {
    await client.end();
    await database.drop();
  }
}

/** The source files (not tests) that raise an event from code. */
function emittingSources(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== "node_modules" && entry.name !== "generated") walk(full);
      else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts")) {
        const text = readFileSync(full, "utf8");
        if (text.includes("recall_webhook_emit(")) found.push(text);
      }
    }
  };
  for (const top of ["packages", "apps"]) walk(path.join(ROOT, top));
  return found;
}

/** The arguments of each jsonb_build_object(…) call, split at its own commas. */
function objectArguments(text: string): string[][] {
  const calls: string[][] = [];
  for (let at = text.indexOf("jsonb_build_object("); at >= 0; at = text.indexOf("jsonb_build_object(", at + 1)) {
    const args: string[] = [];
    let depth = 0;
    let start = at + "jsonb_build_object(".length;
    for (let i = start; i < text.length; i++) {
      const c = text[i];
      if (c === "(") depth++;
      else if (c === ")" && depth-- === 0) {
        args.push(text.slice(start, i).trim());
        break;
      } else if (c === "," && depth === 0) {
        args.push(text.slice(start, i).trim());
        start = i + 1;
      }
    }
    calls.push(args);
  }
  return calls;
}

/** The keys whose value is an id: named `…_id`, or set from an id column. A key built from the subject type names each type's. */
function idKeys(args: string[]): string[] {
  const keys: string[] = [];
  for (let i = 0; i + 1 < args.length; i += 2) {
    const [key, value] = [args[i]!, args[i + 1]!];
    const names = /subject_type\s*\|\|\s*'_id'/.test(key) ? SubjectType.options.map((t) => `${t}_id`) : [key.replace(/^'|'$/g, "")];
    const holdsId = (name: string) => name.endsWith("_id") || /(^|[._])id\b|_id\b|Id\b/.test(value);
    keys.push(...names.filter(holdsId));
  }
  return keys;
}

test("every id key an event's data holds is one erasure deletes events by", async () => {
  const texts = [...(await emitterFunctions()), ...emittingSources()];
  const keys = new Set(texts.flatMap((t) => objectArguments(t).flatMap(idKeys)));
  // The reader finds the emitters' ids at all (a sample each of a trigger's and of code's).
  expect([...keys]).toEqual(
    expect.arrayContaining(["work_item_id", "fact_id", "superseded_by", "instruction_id", "webhook_id", "trace_id"]),
  );
  const unknown = [...keys].filter((k) => !(k in WEBHOOK_ID_KEYS)).sort();
  expect(unknown).toEqual([]);
});

test("every event type is raised somewhere", async () => {
  const texts = [...(await emitterFunctions()), ...emittingSources()].join("\n");
  // Types built from the subject type (`turn.committed`) are raised as `subject_type || '.committed'`.
  const raised = (type: string) => texts.includes(`'${type}'`) || texts.includes(`'.${type.split(".")[1]}'`);
  expect(WEBHOOK_EVENT_TYPES.filter((t) => !raised(t))).toEqual([]);
});
