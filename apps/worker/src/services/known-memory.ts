// What the extractor is told about the context before it reads: known entities,
// their current attributes (for corrections) and the active instructions (for revocations).
// Read once per job, in one statement (the claim's transaction when the stage loads it there).
import type { DbOrTx } from "@recall/db";
import type { ActiveInstruction, KnownAttribute, KnownEntity } from "@recall/contracts";

export interface KnownMemory {
  knownEntities: KnownEntity[];
  knownAttributes: KnownAttribute[];
  activeInstructions: ActiveInstruction[];
}

const MAX_ENTITIES = 500;
const MAX_ATTRIBUTES = 2_000;

/** Newest entities first (at most 500), the current attributes of those (newest first, at most 2,000), active instructions oldest first. */
export async function loadKnownMemory(db: DbOrTx, contextId: string): Promise<KnownMemory> {
  const [row] = await db.$queryRaw<{ entities: KnownEntity[]; attributes: KnownAttribute[]; instructions: ActiveInstruction[] }[]>`
    WITH e AS (
      SELECT id, name, type, aliases, row_number() OVER (ORDER BY created_at DESC) AS rank
      FROM entities WHERE context_id = ${contextId}::uuid AND retracted_at IS NULL
      ORDER BY created_at DESC LIMIT ${MAX_ENTITIES}
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
