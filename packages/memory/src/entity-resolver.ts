// Entity resolution inside the commit transaction: identity key and aliases first,
// type-guarded reuse, and a new entity rather than a false merge.
import type { Entity, MemoryCategory, Tx } from "@recall/db";
import { WILDCARD_TYPE, identityKey, normaliseType, typesCompatible } from "./identity";

export interface EntityRef {
  name: string;
  type?: string;
  memoryCategory: MemoryCategory;
  scope: string[];
  aliases?: string[];
}

export interface ResolvedEntity {
  entity: Entity;
  created: boolean;
}

/** Resolves names within one commit; the cache keeps one entity per key and type across candidates. */
export class EntityResolver {
  private readonly cache = new Map<string, Entity>();

  constructor(
    private readonly tx: Tx,
    private readonly contextId: string,
  ) {}

  async resolve(ref: EntityRef): Promise<ResolvedEntity> {
    const key = identityKey(ref.name);
    const type = normaliseType(ref.type);
    const cached = this.fromCache(key, type);
    if (cached) return { entity: await this.upgrade(cached, type), created: false };
    // Serialises concurrent commits that would create the same entity (no duplicates under load).
    await this.tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`${this.contextId}|${key}`}, 0))`;
    const candidates = await this.tx.entity.findMany({
      where: { contextId: this.contextId, retractedAt: null, OR: [{ identityKey: key }, { aliases: { has: key } }] },
      orderBy: { createdAt: "asc" },
    });
    const match = pickMatch(candidates, type);
    const entity = match ? await this.upgrade(match, type) : await this.create(ref, key, type);
    this.cache.set(`${key}|${entity.type}`, entity);
    return { entity, created: !match };
  }

  private fromCache(key: string, type: string): Entity | undefined {
    for (const [cacheKey, entity] of this.cache) {
      if (cacheKey.startsWith(`${key}|`) && typesCompatible(entity.type, type)) return entity;
    }
    return undefined;
  }

  private async upgrade(entity: Entity, type: string): Promise<Entity> {
    if (entity.type !== WILDCARD_TYPE || type === WILDCARD_TYPE) return entity;
    const upgraded = await this.tx.entity.update({ where: { id: entity.id }, data: { type } });
    this.cache.set(`${upgraded.identityKey}|${type}`, upgraded);
    return upgraded;
  }

  private async create(ref: EntityRef, key: string, type: string): Promise<Entity> {
    const aliases = [...new Set((ref.aliases ?? []).map(identityKey).filter((a) => a && a !== key))];
    return this.tx.entity.create({
      data: {
        contextId: this.contextId,
        name: ref.name.trim(),
        identityKey: key,
        type,
        memoryCategory: ref.memoryCategory,
        aliases,
        scope: ref.scope,
      },
    });
  }
}

/** Exact type first, then a wildcard on either side; anything else is a different entity. */
function pickMatch(candidates: Entity[], type: string): Entity | undefined {
  return candidates.find((e) => e.type === type) ?? candidates.find((e) => typesCompatible(e.type, type));
}
