// Identity keys written before look-alike names were resolved (issue #42). Their meaning changed
// for names with invisible or bidirectional controls and for words mixing Latin with look-alike
// letters of another script: "Al\u200Dice" was keyed "al ice", now "alice". Only names with a
// character outside ASCII can change, so only those rows are read. Each is rekeyed and its display
// name stored as shown, unless the new key is already a live entity's of a compatible type: those
// two are the twins the old keys made, and merging two entities' facts is not a key's job. The
// twin keeps its key, so later mentions still resolve to the one entity they always did, and gets
// an uncertainty naming the entity it looks like, so it is never a silent twin. A second run
// changes nothing.
import { Prisma, transaction, type Db, type Entity, type Tx } from "@recall/db";
import { lockIdentityKeys } from "./entity-store";
import { identityKey, typesCompatible, visibleName } from "../core/identity";

export interface RekeyReport {
  /** Entities whose key or display name was rewritten. */
  rekeyed: number;
  /** Entities left beside the look-alike they were a twin of, with an uncertainty. */
  flagged: number;
}

export async function rekeyEntities(db: Db, options: { contextId?: string } = {}): Promise<RekeyReport> {
  const report: RekeyReport = { rekeyed: 0, flagged: 0 };
  for (const stale of await staleEntities(db, options.contextId)) {
    const outcome = await transaction(db, (tx) => rekeyOne(tx, stale));
    if (outcome) report[outcome] += 1;
  }
  return report;
}

async function staleEntities(db: Db, contextId: string | undefined): Promise<Entity[]> {
  // A name entirely in ASCII has no invisible control and no other script: its key cannot change.
  const ids = await db.$queryRaw<{ id: string }[]>(Prisma.sql`
    SELECT id FROM entities WHERE retracted_at IS NULL AND name ~ ${"[^\\x01-\\x7f]"}
      ${contextId ? Prisma.sql`AND context_id = ${contextId}::uuid` : Prisma.empty}
    ORDER BY created_at`);
  const rows = await db.entity.findMany({ where: { id: { in: ids.map((r) => r.id) } }, orderBy: { createdAt: "asc" } });
  return rows.filter((e) => !erasedLabel(e) && (identityKey(e.name) !== e.identityKey || visibleName(e.name) !== e.name));
}

/** An erased name's neutral label is keyed by the entity's id so no mention resolves to it (erasure-names.ts). */
const erasedLabel = (e: Entity) => e.identityKey === `unnamed ${e.id}`;

async function rekeyOne(tx: Tx, stale: Entity): Promise<"rekeyed" | "flagged" | undefined> {
  const key = identityKey(stale.name);
  await lockIdentityKeys(tx, stale.contextId, [key, stale.identityKey]);
  const entity = await tx.entity.findUnique({ where: { id: stale.id } });
  if (!entity || entity.retractedAt) return undefined;
  const name = visibleName(entity.name);
  const twins = (
    await tx.entity.findMany({ where: { contextId: entity.contextId, retractedAt: null, identityKey: key, id: { not: entity.id } } })
  ).filter((e) => typesCompatible(e.type, entity.type));
  if (twins.length === 0) {
    if (key === entity.identityKey && name === entity.name) return undefined;
    await tx.entity.update({ where: { id: entity.id }, data: { identityKey: key, name } });
    return "rekeyed";
  }
  if (name !== entity.name) await tx.entity.update({ where: { id: entity.id }, data: { name } });
  return (await flagTwin(tx, { ...entity, name }, twins)) ? "flagged" : name !== entity.name ? "rekeyed" : undefined;
}

/** Records the twin once: a second run finds the uncertainty it wrote and adds none. */
async function flagTwin(tx: Tx, entity: Entity, twins: readonly Entity[]): Promise<boolean> {
  const about = `whether "${entity.name}" is ${twins.map((e) => `"${e.name}"`).join(" or ")}`;
  const known = await tx.uncertainty.findFirst({ where: { contextId: entity.contextId, entityId: entity.id, about } });
  if (known) return false;
  const names = twins.map((e) => `${e.name} (${e.type}, ${e.id})`).join("; ");
  await tx.uncertainty.create({
    data: {
      contextId: entity.contextId,
      entityId: entity.id,
      about,
      reason: `"${entity.name}" was recorded as its own entity before look-alike spellings of a name were resolved to one; it looks like ${names}`,
      scopeSetId: entity.scopeSetId,
    },
  });
  return true;
}
