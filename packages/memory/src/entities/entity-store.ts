// Where entity resolution (entity-resolver.ts) reads and writes entities and their mentions. A commit on its own
// asks Postgres name by name (`liveEntities`: the identity key's lock, then its matches, each a statement). The
// commits of a group's turns, written in one transaction, read every name they use at once under all their identity
// locks and keep what they create and change in an `EntityBook`: later turns of the group resolve against it as they
// would against the rows, and the rows go to Postgres together once every turn has written (`flushEntities`).
import { randomUUID } from "node:crypto";
import { holdLocks, lockKey, type DbOrTx, type Entity, type MemoryCategory, type Prisma, type Tx } from "@recall/db";
import { identityKey } from "../core/identity";
import { scopeOf, scopesOf } from "../core/scope-sets";

/** An entity as a commit creates it. */
export interface NewEntity {
  contextId: string;
  name: string;
  identityKey: string;
  type: string;
  memoryCategory: MemoryCategory;
  aliases: string[];
  scopeSetId: bigint | null;
}

/** A mention: the support a resolution leaves for its entity. */
export type NewMention = Omit<Prisma.EntityMentionUncheckedCreateInput, "id" | "createdAt">;

export interface EntityStore {
  /** Holds the identity keys' locks (sorted, so two commits never deadlock). */
  lock(contextId: string, keys: Iterable<string>): Promise<void>;
  /** Entities a normalised name matches by identity key or alias, oldest first (retracted ones are gone). */
  matches(contextId: string, key: string): Promise<Entity[]>;
  /** The entries of the entity's scope. */
  scopeOf(entity: Entity): Promise<string[]>;
  create(data: NewEntity): Promise<Entity>;
  /** The entity with a new type or scope. */
  update(entity: Entity, data: Pick<Entity, "type" | "scopeSetId">): Promise<Entity>;
  mention(data: NewMention): Promise<void>;
}

/** Entities a normalised name matches by identity key or alias (retracted ones are gone). */
export async function findNameMatches(db: DbOrTx, contextId: string, key: string): Promise<Entity[]> {
  return db.entity.findMany({
    where: { contextId, retractedAt: null, OR: [{ identityKey: key }, { aliases: { has: key } }] },
    orderBy: { createdAt: "asc" },
  });
}

/** Entities any of the keys matches by identity key or alias, oldest first, in one read. */
async function readNameMatches(db: DbOrTx, contextId: string, keys: readonly string[]): Promise<Entity[]> {
  if (keys.length === 0) return [];
  return db.entity.findMany({
    where: { contextId, retractedAt: null, OR: [{ identityKey: { in: [...keys] } }, { aliases: { hasSome: [...keys] } }] },
    orderBy: { createdAt: "asc" },
  });
}

/** Of entities read by `readNameMatches`, those a key matches, as `findNameMatches` would answer them. */
function matchesIn(entities: readonly Entity[], contextId: string, key: string): Entity[] {
  return entities.filter((e) => e.contextId === contextId && (e.identityKey === key || e.aliases.includes(key)));
}

/** What some names matched when they were read together: a key among them answered, any other undefined. */
export interface NameSnapshot {
  matches(contextId: string, key: string): Entity[] | undefined;
}

/** The entities the names (their identity keys) match in the context, in one read. */
export async function snapshotNames(db: DbOrTx, contextId: string, names: readonly string[]): Promise<NameSnapshot> {
  const keys = new Set(names.map(identityKey));
  const entities = await readNameMatches(db, contextId, [...keys]);
  return { matches: (context, key) => (context === contextId && keys.has(key) ? matchesIn(entities, contextId, key) : undefined) };
}

/** The locks that serialise commits that could create the same entity: one a key, in sorted order. */
export function identityLocks(contextId: string, keys: Iterable<string>): { key: string; mode: "exclusive" }[] {
  return [...new Set(keys)].sort().map((key) => ({ key: lockKey("entity", contextId, key), mode: "exclusive" as const }));
}

/** Holds the identity keys' locks (identityLocks) in one statement. */
export async function lockIdentityKeys(tx: Tx, contextId: string, keys: Iterable<string>): Promise<void> {
  const locks = identityLocks(contextId, keys);
  if (locks.length > 0) await holdLocks(tx, locks);
}

/** One commit's store: each question a statement in its transaction; a key locked once. */
export function liveEntities(tx: Tx): EntityStore {
  const locked = new Set<string>();
  return {
    async lock(contextId, keys) {
      const fresh = [...keys].filter((key) => !locked.has(`${contextId}|${key}`));
      await lockIdentityKeys(tx, contextId, fresh);
      for (const key of fresh) locked.add(`${contextId}|${key}`);
    },
    matches: (contextId, key) => findNameMatches(tx, contextId, key),
    scopeOf: (entity) => scopeOf(tx, entity.scopeSetId),
    create: (data) => tx.entity.create({ data }),
    update: (entity, data) => tx.entity.update({ where: { id: entity.id }, data }),
    async mention(data) {
      await tx.entityMention.create({ data });
    },
  };
}

/**
 * A group's entities under its identity locks: every entity any of its names (or their look-alikes) matches, read
 * once, and what its commits create and change, written by `flushEntities`. The locks are all held, so nothing
 * else changes these rows meanwhile, and matches come back in the order the rows would (oldest first).
 */
export class EntityBook implements EntityStore {
  private readonly entities: Entity[] = [];
  /** The keys whose matches are all among `entities`. */
  private readonly read = new Set<string>();
  private readonly scopes = new Map<bigint, string[]>();
  private readonly created = new Map<string, Entity>();
  private readonly changed = new Map<string, Pick<Entity, "type" | "scopeSetId">>();
  private readonly mentions: (NewMention & { createdAt: Date })[] = [];
  /** The last creation time given: each entity gets a later one, so creation order survives a shared millisecond. */
  private lastCreatedAt = 0;

  private constructor(private readonly tx: Tx) {}

  /**
   * Reads every entity the keys (whose identity locks the caller holds: identityLocks) and the look-alike keys match,
   * in one statement, and the scopes of those in one more.
   */
  static async open(tx: Tx, contextId: string, lockedKeys: readonly string[], lookalikeKeys: readonly string[]): Promise<EntityBook> {
    const book = new EntityBook(tx);
    for (const key of [...lockedKeys, ...lookalikeKeys]) book.read.add(key);
    book.entities.push(...(await readNameMatches(tx, contextId, [...book.read])));
    if (book.entities.length === 0) return book;
    const entriesOf = await scopesOf(
      tx,
      book.entities.map((e) => e.scopeSetId),
    );
    for (const e of book.entities) if (e.scopeSetId !== null) book.scopes.set(e.scopeSetId, entriesOf(e.scopeSetId));
    return book;
  }

  /** The locks were taken when the book was opened, for every key its commits use. */
  async lock(): Promise<void> {}

  async matches(contextId: string, key: string): Promise<Entity[]> {
    if (!this.read.has(key)) {
      // A name the book was not opened for (none the commits' candidates use): locked and read now, as alone.
      await lockIdentityKeys(this.tx, contextId, [key]);
      const known = new Set(this.entities.map((e) => e.id));
      this.entities.push(...(await findNameMatches(this.tx, contextId, key)).filter((e) => !known.has(e.id)));
      this.read.add(key);
    }
    return matchesIn(this.entities, contextId, key);
  }

  async scopeOf(entity: Entity): Promise<string[]> {
    if (entity.scopeSetId === null) return [];
    const known = this.scopes.get(entity.scopeSetId);
    if (known) return known;
    const entries = await scopeOf(this.tx, entity.scopeSetId);
    this.scopes.set(entity.scopeSetId, entries);
    return entries;
  }

  async create(data: NewEntity): Promise<Entity> {
    // As Prisma would create it: its id and creation time given here, the rest Postgres's defaults.
    this.lastCreatedAt = Math.max(Date.now(), this.lastCreatedAt + 1);
    const entity: Entity = { ...data, id: randomUUID(), createdAt: new Date(this.lastCreatedAt), retractedAt: null };
    this.entities.push(entity);
    this.created.set(entity.id, entity);
    return entity;
  }

  async update(entity: Entity, data: Pick<Entity, "type" | "scopeSetId">): Promise<Entity> {
    const at = this.entities.findIndex((e) => e.id === entity.id);
    const updated = { ...(at >= 0 ? this.entities[at]! : entity), ...data };
    if (at >= 0) this.entities[at] = updated;
    if (this.created.has(entity.id)) this.created.set(entity.id, updated);
    else this.changed.set(entity.id, data);
    return updated;
  }

  async mention(data: NewMention): Promise<void> {
    this.mentions.push({ ...data, createdAt: new Date() });
  }

  /** The entities created and changed, then the mentions, each kind in one statement (a change in one each: rare). */
  async flush(): Promise<void> {
    const tx = this.tx;
    if (this.created.size > 0) await tx.entity.createMany({ data: [...this.created.values()].map(creatable) });
    for (const [id, data] of this.changed) await tx.entity.update({ where: { id }, data });
    if (this.mentions.length > 0) await tx.entityMention.createMany({ data: this.mentions });
    this.created.clear();
    this.changed.clear();
    this.mentions.length = 0;
  }
}

function creatable(e: Entity): Prisma.EntityCreateManyInput {
  const { id, contextId, name, identityKey, type, memoryCategory, aliases, scopeSetId, createdAt } = e;
  return { id, contextId, name, identityKey, type, memoryCategory, aliases, scopeSetId, createdAt };
}
