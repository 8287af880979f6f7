// A scope's pairs (`user=alice`) are personal data, kept once per context in scope_sets (core/scope-sets.ts). An
// erasure deletes each set its inputs were written in that no row names any more, so erasing everything said under
// `user=alice` leaves no `user=alice` behind. A set another row still names stays (it is that row's scope).
import { Prisma, type Tx } from "@recall/db";
import type { InputIds } from "./erasure-inputs";

/** The tables whose rows name a scope set. */
const NAMING = [
  "turns",
  "fact_writes",
  "entities",
  "entity_mentions",
  "assertions",
  "attributes",
  "relations",
  "instructions",
  "uncertainties",
  "embeddings",
] as const;

/**
 * The sets the inputs were written in, read before they are deleted: a turn's or direct write's own set, and for a
 * document (whose scope is its metadata) the sets of the mentions and assertions read from it. Entities and facts
 * name their sources' sets, so these are all the sets the erasure can leave unnamed.
 */
export async function setsOfInputs(tx: Tx, contextId: string, ids: InputIds): Promise<bigint[]> {
  const rows = await tx.$queryRaw<{ id: bigint }[]>`
    SELECT scope_set_id AS id FROM turns WHERE context_id = ${contextId}::uuid AND id = ANY(${ids.turn}::uuid[]) AND scope_set_id IS NOT NULL
    UNION SELECT scope_set_id FROM fact_writes WHERE context_id = ${contextId}::uuid AND id = ANY(${ids.fact_write}::uuid[]) AND scope_set_id IS NOT NULL
    UNION SELECT scope_set_id FROM entity_mentions WHERE context_id = ${contextId}::uuid AND document_id = ANY(${ids.document}::uuid[]) AND scope_set_id IS NOT NULL
    UNION SELECT scope_set_id FROM assertions WHERE context_id = ${contextId}::uuid AND document_id = ANY(${ids.document}::uuid[]) AND scope_set_id IS NOT NULL`;
  return rows.map((r) => r.id);
}

/** Deletes those of `sets` that no row of the context names; answers how many. */
export async function deleteUnnamedSets(tx: Tx, contextId: string, sets: readonly bigint[]): Promise<number> {
  if (sets.length === 0) return 0;
  const unnamed = Prisma.join(
    NAMING.map(
      (table) => Prisma.sql`NOT EXISTS (SELECT 1 FROM ${Prisma.raw(table)} r WHERE r.context_id = s.context_id AND r.scope_set_id = s.id)`,
    ),
    " AND ",
  );
  return tx.$executeRaw`
    DELETE FROM scope_sets s WHERE s.context_id = ${contextId}::uuid AND s.id = ANY(${sets.map(String)}::bigint[]) AND ${unnamed}`;
}
