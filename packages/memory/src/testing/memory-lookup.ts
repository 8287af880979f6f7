// Small reads that go with the fact history: finding an entity by name, and the
// instructions in force at a system time (revoked and retracted ones stay readable).
import type { Db } from "@recall/db";
import { identityKey } from "../core/identity";
import { scopeVisible, type Scope } from "../core/scope";

export interface EntityMatch {
  id: string;
  name: string;
  type: string;
  aliases: string[];
  scope: string[];
}

/**
 * Entities a name denotes (identity key or alias), oldest first. With a reader scope,
 * only those some live source mentioned in a scope the reader can see.
 */
export async function findEntitiesByName(db: Db, query: { contextId: string; name: string; scope?: Scope }): Promise<EntityMatch[]> {
  const key = identityKey(query.name);
  const entities = await db.entity.findMany({
    where: { contextId: query.contextId, retractedAt: null, OR: [{ identityKey: key }, { aliases: { has: key } }] },
    orderBy: { createdAt: "asc" },
  });
  if (!query.scope) return entities.map(match);
  const mentions = await db.entityMention.findMany({ where: { entityId: { in: entities.map((e) => e.id) }, retractedAt: null } });
  const seen = (id: string) => mentions.some((m) => m.entityId === id && scopeVisible(m.scope, query.scope!));
  return entities.filter((e) => scopeVisible(e.scope, query.scope!) || seen(e.id)).map(match);
}

function match(e: EntityMatch): EntityMatch {
  return { id: e.id, name: e.name, type: e.type, aliases: e.aliases, scope: e.scope };
}

export interface InstructionQuery {
  contextId: string;
  scope?: Scope;
  /** System time; omitted = now. */
  knownAt?: Date;
  /** Also list instructions revoked or retracted by knownAt (the audit view). */
  includeInactive?: boolean;
}

export interface InstructionRecord {
  id: string;
  label: string;
  description: string;
  scope: string[];
  active: boolean;
  created_at: Date;
  revoked_at: Date | null;
  revoked_by_turn_id: string | null;
  retracted_at: Date | null;
}

/** Instructions as known at knownAt: active means created by then and neither revoked nor retracted by then. */
export async function readInstructions(db: Db, query: InstructionQuery): Promise<InstructionRecord[]> {
  const at = query.knownAt ?? new Date();
  const rows = await db.instruction.findMany({
    where: { contextId: query.contextId, createdAt: { lte: at } },
    orderBy: { createdAt: "asc" },
  });
  const before = (d: Date | null) => (d && d <= at ? d : null);
  const records = rows
    .filter((i) => !query.scope || scopeVisible(i.scope, query.scope))
    .map((i) => {
      const revokedAt = before(i.revokedAt);
      const retractedAt = before(i.retractedAt);
      return {
        id: i.id,
        label: i.label,
        description: i.description,
        scope: i.scope,
        active: revokedAt === null && retractedAt === null,
        created_at: i.createdAt,
        revoked_at: revokedAt,
        revoked_by_turn_id: revokedAt ? i.revokedByTurnId : null,
        retracted_at: retractedAt,
      };
    });
  return query.includeInactive ? records : records.filter((r) => r.active);
}
