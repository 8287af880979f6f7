// GET /entities/{id}/history: every value an entity's attributes and relations ever
// had in the reader's scope, in valid-time order, each with its validity, what
// superseded it and whether it was retracted. Nothing is filtered by time here.
// Values are whole (where /profile and /state clip them, this is where they are read), so a page
// ends early instead once the next value would take the answer past its byte budget.
import { Prisma, type DbOrTx } from "@recall/db";
import { ITEMS_BYTES, jsonBytes } from "./answer-bounds";
import { pageWithin } from "./clip-views";
import { readFacts } from "./fact-query";
import type { EntitySummary, FactView, ListPosition, ReaderScope } from "./read-types";
import { pageOf, visibleTo } from "./sql-fragments";

export interface HistoryInput extends ReaderScope {
  entityId: string;
  limit: number;
  after?: ListPosition;
}

export interface EntityHistory {
  entity: EntitySummary & { memory_category: string; aliases: string[]; created_at: Date };
  values: (FactView & { current: boolean })[];
  next: ListPosition | null;
}

/** undefined when the entity is not in the context, or the reader can see neither it nor any of its facts. */
export async function readEntityHistory(db: DbOrTx, input: HistoryInput): Promise<EntityHistory | undefined> {
  const entity = await visibleEntity(db, input);
  if (!entity) return undefined;
  const rows = await readFacts(db, {
    contextId: input.contextId,
    scope: input.scope,
    includeRetracted: true,
    subjectIds: [entity.id],
    orderBy: "valid_from",
    after: input.after,
    limit: input.limit + 1,
  });
  const page = pageOf(rows, input.limit, (f) => f.valid_from.toISOString());
  if (!entity.visible && page.items.length === 0 && !input.after) return undefined;
  const now = Date.now();
  const { visible: _visible, ...view } = entity;
  const values = pageWithin(
    { items: page.items.map((f) => ({ ...f, current: isCurrent(f, now) })), next: page.next },
    ITEMS_BYTES - jsonBytes(view),
    (f) => f.valid_from.toISOString(),
  );
  return { entity: view, values: values.items, next: values.next };
}

function isCurrent(f: FactView, now: number): boolean {
  return !f.retracted_at && f.valid_from.getTime() <= now && (f.valid_to === null || f.valid_to.getTime() > now);
}

async function visibleEntity(db: DbOrTx, input: HistoryInput) {
  const rows = await db.$queryRaw<(EntityHistory["entity"] & { visible: boolean })[]>(Prisma.sql`
    SELECT e.id, e.name, e.type, e.memory_category::text AS memory_category, e.aliases, e.created_at, ${visibleTo("e", input.scope)} AS visible
    FROM entities e WHERE e.id = ${input.entityId}::uuid AND e.context_id = ${input.contextId}::uuid`);
  return rows[0];
}
