// What the extractor is told about the context before it reads: known entities,
// their current attributes (for corrections) and the active instructions (for revocations).
// Read once per job, in one statement (the claim's transaction when the stage loads it there).
// As memory grows past what a prompt can list, the entities the text itself names come first: a pet named in
// session 1 and again in session 40, after hundreds of newer entities, is still offered by its stored name and type.
import type { DbOrTx } from "@recall/db";
import { WRITE_CAPS, type ActiveInstruction, type KnownAttribute, type KnownEntity } from "@recall/contracts";
import { identityKey } from "@recall/memory";

export interface KnownMemory {
  knownEntities: KnownEntity[];
  knownAttributes: KnownAttribute[];
  activeInstructions: ActiveInstruction[];
}

const MAX_ENTITIES = 500;
const MAX_ATTRIBUTES = 2_000;
/** Entities named in the text, looked up by identity key, ahead of the newest (within MAX_ENTITIES). */
const MAX_NAMED = 200;
/** Distinct name keys looked up: runs of one to four words of the text, the first found. */
const MAX_NAME_KEYS = 5_000;
const NAME_WORDS = 4;

/**
 * The entities the texts name (by identity key: "luna's" and "LUNA" are Luna) first, then the newest (at most 500 in
 * all); the current attributes of those (newest first, at most 2,000); active instructions oldest first.
 */
export async function loadKnownMemory(db: DbOrTx, contextId: string, texts: readonly string[] = []): Promise<KnownMemory> {
  const keys = nameKeysIn(texts);
  const [row] = await db.$queryRaw<{ entities: KnownEntity[]; attributes: KnownAttribute[]; instructions: ActiveInstruction[] }[]>`
    WITH named AS (
      SELECT id, name, type, aliases, created_at, 0 AS tier
      FROM entities WHERE context_id = ${contextId}::uuid AND retracted_at IS NULL AND identity_key = ANY(${keys}::text[])
      ORDER BY created_at DESC LIMIT ${MAX_NAMED}
    ), newest AS (
      SELECT id, name, type, aliases, created_at, 1 AS tier
      FROM entities WHERE context_id = ${contextId}::uuid AND retracted_at IS NULL
      ORDER BY created_at DESC LIMIT ${MAX_ENTITIES}
    ), e AS (
      SELECT id, name, type, aliases, row_number() OVER (ORDER BY tier, created_at DESC) AS rank
      FROM (SELECT DISTINCT ON (id) * FROM (SELECT * FROM named UNION ALL SELECT * FROM newest) u ORDER BY id, tier) d
      ORDER BY tier, created_at DESC LIMIT ${MAX_ENTITIES}
    ), a AS (
      SELECT e.name AS entity, x.key, x.value, row_number() OVER (ORDER BY x.recorded_at DESC) AS rank
      FROM attributes x JOIN e ON e.id = x.entity_id
      WHERE x.context_id = ${contextId}::uuid AND x.superseded_by IS NULL AND x.valid_to IS NULL AND x.retracted_at IS NULL
      ORDER BY x.recorded_at DESC LIMIT ${MAX_ATTRIBUTES}
    )
    SELECT
      (SELECT coalesce(json_agg(json_build_object('id', id, 'name', name, 'type', type, 'aliases', aliases) ORDER BY rank), '[]') FROM e) AS entities,
      (SELECT coalesce(json_agg(json_build_object('entity', entity, 'key', key, 'value', value) ORDER BY rank), '[]') FROM a) AS attributes,
      (SELECT coalesce(json_agg(json_build_object('id', id, 'label', label, 'description', description) ORDER BY created_at), '[]')
         FROM instructions WHERE context_id = ${contextId}::uuid AND active) AS instructions`;
  return { knownEntities: row!.entities, knownAttributes: row!.attributes, activeInstructions: row!.instructions };
}

/** The identity keys of every run of one to four words of the texts (no longer than a name may be), at most MAX_NAME_KEYS: linear in the texts. */
export function nameKeysIn(texts: readonly string[]): string[] {
  const keys = new Set<string>();
  for (const text of texts) {
    const words = text.match(/[\p{L}\p{N}][\p{L}\p{N}'’.-]*/gu) ?? [];
    for (let i = 0; i < words.length; i += 1) {
      for (let n = 1; n <= NAME_WORDS && i + n <= words.length; n += 1) {
        const name = words.slice(i, i + n).join(" ");
        // No stored name is longer than the cap (a run of 2 MB without a space names nothing).
        if (name.length > WRITE_CAPS.name) break;
        const key = identityKey(name);
        if (key !== "") keys.add(key);
        if (keys.size >= MAX_NAME_KEYS) return [...keys];
      }
    }
  }
  return [...keys];
}
