// GET /entities/{id}/history: every value an entity's attributes and relations ever
// had in the reader's scope, in valid-time order, each with its validity, what
// superseded it and whether it was retracted. Nothing is filtered by time here.
// Values are whole (where /profile and /state clip them, this is where they are read), so a page
// ends early instead once the next value would take the answer past its byte budget.
import { Prisma, type DbOrTx } from "@recall/db";
import { ITEMS_BYTES, READ_LIMITS, jsonBytes } from "./answer-bounds";
import { Clipper, pageWithin, type Truncation } from "./clip-views";
import { readFacts } from "./fact-query";
import type { EntitySummary, FactView, ListPosition, ReaderScope } from "./read-types";
import { pageOf, visibleTo } from "./sql-fragments";

export interface HistoryInput extends ReaderScope {
  entityId: string;
  limit: number;
  after?: ListPosition;
}

export interface EntityHistory {
  entity: EntitySummary & { memory_category: string; aliases: string[]; created_at: Date } & Truncation;
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
  const { visible: _visible, ...whole } = entity;
  const view = boundedHeader(whole);
  const values = pageWithin(
    { items: page.items.map((f) => ({ ...f, current: isCurrent(f, now) })), next: page.next },
    ITEMS_BYTES - jsonBytes(view),
    (f) => f.valid_from.toISOString(),
  );
  return { entity: view, values: values.items, next: values.next };
}

/**
 * The entity as the page's header: whole, unless a row stored before the write caps has a name or aliases that would
 * take a quarter of the answer; then clipped like /profile's (a name to READ_LIMITS.nameChars, the first
 * READ_LIMITS.aliases aliases), flagged `truncated`.
 */
function boundedHeader(entity: EntityHistory["entity"]): EntityHistory["entity"] {
  if (jsonBytes(entity) <= READ_LIMITS.answerBytes / 4) return entity;
  const c = new Clipper();
  const aliases = entity.aliases.slice(0, READ_LIMITS.aliases).map((a) => c.name(a));
  if (aliases.length < entity.aliases.length) c.cut = true;
  return c.flagged({ ...c.entity(entity), aliases });
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
