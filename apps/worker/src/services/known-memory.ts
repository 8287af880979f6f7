// What the extractor is told about the context before it reads: known entities,
// their current attributes (for corrections) and the active instructions (for revocations).
import type { Db } from "@recall/db";
import type { ActiveInstruction, KnownAttribute, KnownEntity } from "@recall/contracts";

export interface KnownMemory {
  knownEntities: KnownEntity[];
  knownAttributes: KnownAttribute[];
  activeInstructions: ActiveInstruction[];
}

const MAX_ENTITIES = 500;

export async function loadKnownMemory(db: Db, contextId: string): Promise<KnownMemory> {
  const entities = await db.entity.findMany({
    where: { contextId, retractedAt: null },
    orderBy: { createdAt: "desc" },
    take: MAX_ENTITIES,
  });
  const names = new Map(entities.map((e) => [e.id, e.name]));
  const attributes = await db.attribute.findMany({
    where: { contextId, entityId: { in: [...names.keys()] }, supersededById: null, validTo: null, retractedAt: null },
    orderBy: { recordedAt: "desc" },
    take: 2_000,
  });
  const instructions = await db.instruction.findMany({ where: { contextId, active: true }, orderBy: { createdAt: "asc" } });
  return {
    knownEntities: entities.map((e) => ({ id: e.id, name: e.name, type: e.type, aliases: e.aliases })),
    knownAttributes: attributes.map((a) => ({ entity: names.get(a.entityId) ?? "", key: a.key, value: a.value })),
    activeInstructions: instructions.map((i) => ({ id: i.id, label: i.label, description: i.description })),
  };
}
