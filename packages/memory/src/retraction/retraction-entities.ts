// Entities are supported by their mentions. When a source is retracted its mentions
// go with it; an entity no live source mentions any more is retracted, and one that
// is still mentioned is shown in the scope its remaining mentions justify.
import type { Tx } from "@recall/db";
import { widensScope } from "../entities/entity-matching";
import { scopesOf } from "../core/scope-sets";

export interface MentionSourceFilter {
  contextId: string;
  turnId?: string;
  documentId?: string;
  factWriteId?: string;
}

/** Retracts the source's mentions; returns the entities retracted because nothing else mentions them. */
export async function retractEntities(tx: Tx, source: MentionSourceFilter, now: Date): Promise<string[]> {
  const mentions = await tx.entityMention.findMany({ where: { ...source, retractedAt: null }, select: { id: true, entityId: true } });
  if (mentions.length === 0) return [];
  await tx.entityMention.updateMany({ where: { id: { in: mentions.map((m) => m.id) } }, data: { retractedAt: now } });
  const retracted: string[] = [];
  for (const entityId of new Set(mentions.map((m) => m.entityId))) {
    const live = await tx.entityMention.findMany({ where: { entityId, retractedAt: null }, orderBy: { createdAt: "asc" } });
    if (live.length === 0) {
      await tx.entity.update({ where: { id: entityId }, data: { retractedAt: now } });
      retracted.push(entityId);
      continue;
    }
    // The first mention's scope, widened by each later one as the resolver widened it when they were written.
    const entriesOf = await scopesOf(
      tx,
      live.map((m) => m.scopeSetId),
    );
    const scopeSetId = live
      .slice(1)
      .reduce(
        (acc, m) => (acc !== m.scopeSetId && widensScope(entriesOf(acc), entriesOf(m.scopeSetId)) ? m.scopeSetId : acc),
        live[0]!.scopeSetId,
      );
    await tx.entity.update({ where: { id: entityId }, data: { scopeSetId } });
  }
  return retracted;
}
