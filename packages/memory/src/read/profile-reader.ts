// GET /profile: what an agent reads before every system prompt — the entities in the
// reader's scope with their current attributes and relations, and the active
// instructions. Two statements run side by side: one for the page of entities with
// their facts aggregated per entity, one for the instructions. Entities most recently
// touched come first. The answer is bounded in bytes (answer-bounds.ts): names and values
// are clipped, an entity too large for its share keeps the facts that fit, and the page of
// entities ends early when the budget is spent.
import { Prisma, type DbOrTx } from "@recall/db";
import { ITEMS_BYTES, READ_LIMITS, jsonBytes } from "./answer-bounds";
import { Clipper, clipInstruction, listWithin, pageWithin, type Truncation } from "./clip-views";
import { activeInstructions } from "./directive-reader";
import { shownToReader } from "./fact-query";
import type { EntitySummary, InstructionView, ListPosition, ReaderScope } from "./read-types";
import { afterPosition, knownAt, pageOf, validAt, visibleTo } from "./sql-fragments";

export interface ProfileInput extends ReaderScope {
  limit: number;
  after?: ListPosition;
  /** The instant "current" means; defaults to now. */
  now?: Date;
}

interface Timing {
  memory_category: string;
  confidence: number;
  valid_from: Date;
  valid_to: Date | null;
}

export interface ProfileEntity extends EntitySummary, Truncation {
  memory_category: string;
  aliases: string[];
  attributes: ({ id: string; key: string; value: string } & Timing)[];
  relations: ({ id: string; predicate: string; object: EntitySummary } & Timing)[];
}

export interface Profile {
  entities: ProfileEntity[];
  instructions: InstructionView[];
  next: ListPosition | null;
  /** Set when the instructions were cut to the byte budget (GET /instructions lists them all). */
  truncated?: true;
}

type EntityRow = Omit<ProfileEntity, "attributes" | "relations"> & {
  touched_at: Date;
  attributes: JsonFact<ProfileEntity["attributes"][number]>[];
  relations: JsonFact<ProfileEntity["relations"][number]>[];
};

/** json_agg writes timestamps as strings. */
type JsonFact<T extends Timing> = Omit<T, "valid_from" | "valid_to"> & { valid_from: string; valid_to: string | null };

export async function readProfile(db: DbOrTx, input: ProfileInput): Promise<Profile> {
  const now = input.now ?? new Date();
  const [rows, instructions] = await Promise.all([db.$queryRaw<EntityRow[]>(profileStatement(input, now)), activeInstructions(db, input)]);
  const page = pageOf(rows, input.limit, (r) => r.touched_at.toISOString());
  const rules = listWithin(instructions.map(clipInstruction), READ_LIMITS.answerBytes / 4);
  const entities = pageWithin(
    { items: page.items.map((r) => ({ ...boundedEntity(toProfileEntity(r)), touched_at: r.touched_at })), next: page.next },
    ITEMS_BYTES - jsonBytes(rules.items),
    (r) => r.touched_at.toISOString(),
  );
  const cut: Truncation = rules.cut ? { truncated: true } : {};
  return { entities: entities.items.map(({ touched_at: _t, ...e }) => e), instructions: rules.items, next: entities.next, ...cut };
}

/**
 * Names and values clipped, aliases at most READ_LIMITS.aliases, and the attributes and relations
 * that fit in a quarter of the answer each: an entity with thousands of facts leaves room for others.
 * Its history (GET /entities/{id}/history) pages every value.
 */
function boundedEntity(e: ProfileEntity): ProfileEntity {
  const c = new Clipper();
  const aliases = e.aliases.slice(0, READ_LIMITS.aliases).map((a) => c.name(a));
  const attributes = e.attributes.map((a) => ({ ...a, key: c.name(a.key), value: c.value(a.value) }));
  const relations = e.relations.map((r) => ({ ...r, predicate: c.name(r.predicate), object: c.entity(r.object) }));
  const share = READ_LIMITS.answerBytes / 4;
  const kept = { attributes: listWithin(attributes, share), relations: listWithin(relations, share) };
  c.cut ||= aliases.length < e.aliases.length || kept.attributes.cut || kept.relations.cut;
  return c.flagged({ ...c.entity(e), aliases, attributes: kept.attributes.items, relations: kept.relations.items });
}

/** Current, visible, not retracted, not shadowed by a narrower scope's value nor restated: the facts a profile shows. */
const current = (input: ProfileInput, now: Date, kind: "attribute" | "relation") =>
  Prisma.sql`f.context_id = ${input.contextId}::uuid AND ${visibleTo("f", input.scope)} AND ${knownAt("f", undefined)} AND ${validAt("f", now)}
    AND ${shownToReader(kind, input.scope, now)}`;

/**
 * Entities the reader can see: written in its scope, or the subject of a current fact it
 * can see (an entity first named in another scope still shows the reader's own facts).
 */
function profileStatement(input: ProfileInput, now: Date): Prisma.Sql {
  const touched = (table: string, subject: string) => Prisma.sql`
    SELECT f.${Prisma.raw(subject)} AS id, max(f.recorded_at) AS at FROM ${Prisma.raw(table)} f WHERE ${current(input, now, table === "attributes" ? "attribute" : "relation")} GROUP BY 1`;
  return Prisma.sql`
    WITH page AS (
      SELECT * FROM (
        SELECT e.id, e.name, e.type, e.memory_category::text AS memory_category, e.aliases, COALESCE(t.at, e.created_at) AS touched_at
        FROM entities e
        LEFT JOIN (SELECT id, max(at) AS at FROM (${touched("attributes", "entity_id")} UNION ALL ${touched("relations", "subject_id")}) x
          GROUP BY id) t ON t.id = e.id
        WHERE e.context_id = ${input.contextId}::uuid AND e.retracted_at IS NULL AND (t.id IS NOT NULL OR ${visibleTo("e", input.scope)})
      ) p
      WHERE ${afterPosition(Prisma.raw("p.touched_at"), Prisma.raw("p.id"), input.after, true)}
      ORDER BY p.touched_at DESC, p.id DESC LIMIT ${input.limit + 1}
    )
    SELECT p.*, ${attributesOf(input, now)} AS attributes, ${relationsOf(input, now)} AS relations
    FROM page p ORDER BY p.touched_at DESC, p.id DESC`;
}

const timing = Prisma.sql`'memory_category', f.memory_category, 'confidence', f.confidence, 'valid_from', f.valid_from, 'valid_to', f.valid_to`;

function attributesOf(input: ProfileInput, now: Date): Prisma.Sql {
  return Prisma.sql`COALESCE((SELECT json_agg(json_build_object('id', f.id, 'key', f.key, 'value', f.value, ${timing}) ORDER BY f.key, f.valid_from)
    FROM attributes f WHERE f.entity_id = p.id AND ${current(input, now, "attribute")}), '[]'::json)`;
}

function relationsOf(input: ProfileInput, now: Date): Prisma.Sql {
  return Prisma.sql`COALESCE((SELECT json_agg(json_build_object('id', f.id, 'predicate', f.predicate,
      'object', json_build_object('id', o.id, 'name', o.name, 'type', o.type), ${timing}) ORDER BY f.predicate, f.valid_from)
    FROM relations f JOIN entities o ON o.id = f.object_id AND o.context_id = f.context_id WHERE f.subject_id = p.id AND ${current(input, now, "relation")}), '[]'::json)`;
}

function toProfileEntity(row: EntityRow): ProfileEntity {
  const { touched_at: _touched, attributes, relations, ...entity } = row;
  return { ...entity, attributes: attributes.map(withDates), relations: relations.map(withDates) };
}

function withDates<T extends Timing>(fact: JsonFact<T>): T {
  return { ...fact, valid_from: new Date(fact.valid_from), valid_to: fact.valid_to === null ? null : new Date(fact.valid_to) } as T;
}
