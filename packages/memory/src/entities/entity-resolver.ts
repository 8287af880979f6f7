// Entity resolution inside the commit transaction: identity key and aliases first,
// type-guarded reuse (entity-matching.ts), a disambiguator's checkpointed answer for
// contested names, and a new entity rather than a false merge. Every resolution leaves
// a mention, the entity's support: delete-by-source retracts entities left without one.
import type { Entity, MemoryCategory } from "@recall/db";
import type { DisambiguationDecision } from "./entity-disambiguation";
import { classifyMatches, widensScope } from "./entity-matching";
import type { EntityStore } from "./entity-store";
import { WILDCARD_TYPE, identityKey, lookalikeKey, normaliseType, typesCompatible, visibleName } from "../core/identity";

export interface EntityNameRef {
  name: string;
  type?: string;
  memoryCategory: MemoryCategory;
  aliases?: string[];
}

export interface MentionSource {
  contextId: string;
  scope: string[];
  /** The set of `scope` (core/scope-sets.ts), which the entities and mentions written here name. */
  scopeSetId: bigint | null;
  turnId?: string;
  documentId?: string;
  factWriteId?: string;
}

export interface ResolvedEntity {
  entity: Entity;
  created: boolean;
  /** Set when the name fitted several entities and nothing decided which: a new one was made instead. */
  ambiguousWith?: Entity[];
  /** Set when a name written wholly in another script looks like these known entities' name: a new one was made. */
  lookalikeOf?: Entity[];
}

/** Resolves names within one commit; the cache keeps one entity per name and type across candidates. */
export class EntityResolver {
  private readonly cache = new Map<string, Entity>();
  private readonly mentioned = new Set<string>();

  constructor(
    private readonly store: EntityStore,
    private readonly source: MentionSource,
    private readonly decisions: ReadonlyMap<string, DisambiguationDecision> = new Map(),
  ) {}

  async resolve(ref: EntityNameRef, candidateId?: string): Promise<ResolvedEntity> {
    const key = identityKey(ref.name);
    const type = normaliseType(ref.type);
    const cached = this.fromCache(key, type);
    const resolved = cached ? { entity: await this.reuse(cached, type), created: false } : await this.lookUp(ref, key, type);
    this.cache.set(`${key}|${type}`, resolved.entity);
    await this.mention(resolved.entity.id, candidateId);
    return resolved;
  }

  private async lookUp(ref: EntityNameRef, key: string, type: string): Promise<ResolvedEntity> {
    await this.store.lock(this.source.contextId, [key]);
    const outcome = classifyMatches(await this.store.matches(this.source.contextId, key), key, type);
    if (outcome.kind === "none") return this.createBeside(ref, key, type, await this.lookalikes(ref.name, type));
    if (outcome.kind === "unique") return { entity: await this.reuse(outcome.entity, type), created: false };
    const decision = this.decisions.get(`${key}|${type}`);
    const chosen = decision?.entityId ? outcome.matches.find((e) => e.id === decision.entityId) : undefined;
    if (chosen) return { entity: await this.reuse(chosen, type), created: false };
    const entity = await this.create(ref, key, type);
    // Only an undecided ambiguity is worth an uncertainty: a disambiguator's "none of these",
    // or an entity of another type (apple the fruit vs Apple the company), is simply new.
    const undecided = !decision && outcome.reason === "ambiguous";
    return { entity, created: true, ...(undecided ? { ambiguousWith: outcome.matches } : {}) };
  }

  /**
   * Known entities a name written wholly in another script looks like ("Сосо" in Cyrillic and a
   * known "Coco"). It may be a real name in its own script, so it is not merged: the new entity
   * comes with an uncertainty naming the look-alike, and the two are never shown as silent twins.
   */
  private async lookalikes(name: string, type: string): Promise<Entity[]> {
    const key = lookalikeKey(name);
    if (!key) return [];
    const matches = await this.store.matches(this.source.contextId, key);
    return matches.filter((e) => typesCompatible(e.type, type));
  }

  private async createBeside(ref: EntityNameRef, key: string, type: string, lookalikes: Entity[]): Promise<ResolvedEntity> {
    const entity = await this.create(ref, key, type);
    return { entity, created: true, ...(lookalikes.length > 0 ? { lookalikeOf: lookalikes } : {}) };
  }

  private fromCache(key: string, type: string): Entity | undefined {
    const exact = this.cache.get(`${key}|${type}`);
    if (exact) return exact;
    for (const [cacheKey, entity] of this.cache) {
      if (cacheKey.startsWith(`${key}|`) && typesCompatible(entity.type, type)) return entity;
    }
    return undefined;
  }

  /** `topic` upgrades to the specific type; a writer with a broader scope widens where the entity is shown. */
  private async reuse(entity: Entity, type: string): Promise<Entity> {
    const upgradedType = entity.type === WILDCARD_TYPE && type !== WILDCARD_TYPE ? type : entity.type;
    const widens = entity.scopeSetId !== this.source.scopeSetId && widensScope(await this.store.scopeOf(entity), this.source.scope);
    const scopeSetId = widens ? this.source.scopeSetId : entity.scopeSetId;
    if (upgradedType === entity.type && scopeSetId === entity.scopeSetId) return entity;
    return this.store.update(entity, { type: upgradedType, scopeSetId });
  }

  private async create(ref: EntityNameRef, key: string, type: string): Promise<Entity> {
    const aliases = [...new Set((ref.aliases ?? []).map(identityKey).filter((a) => a && a !== key))];
    return this.store.create({
      contextId: this.source.contextId,
      // Stored as shown: a name never carries a control that reorders the text printed after it.
      name: visibleName(ref.name),
      identityKey: key,
      type,
      memoryCategory: ref.memoryCategory,
      aliases,
      scopeSetId: this.source.scopeSetId,
    });
  }

  private async mention(entityId: string, candidateId: string | undefined): Promise<void> {
    const key = `${entityId}|${candidateId ?? ""}`;
    if (this.mentioned.has(key)) return;
    this.mentioned.add(key);
    const { contextId, scopeSetId, turnId, documentId, factWriteId } = this.source;
    await this.store.mention({ contextId, entityId, candidateId, scopeSetId, turnId, documentId, factWriteId });
  }
}
