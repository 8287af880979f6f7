// Full-text retrievers, one SELECT per kind of text, run side by side. The
// tsvector expressions over turns and document nodes match the GIN indexes of
// prisma/migrations/20261202133500_read_model_search_indexes exactly, so the planner
// uses them; fact and instruction text is short and already narrowed to the context,
// the reader's scope and the current instant by b-tree indexes, so it is computed inline.
import { Prisma } from "@recall/db";
import { normaliseScope } from "../scope";
import { knownAt, validAt, visibleTo } from "./sql-fragments";
import type { SearchInput, SearchKind } from "./search-types";

interface Retriever {
  /** The text the tsvector is built from. */
  vector: Prisma.Sql;
  /** The text a caller sees. */
  text: Prisma.Sql;
  link: Prisma.Sql;
  from: Prisma.Sql;
  where: Prisma.Sql;
}

/** `any` ORs the query's own lexemes (stemmed, stop words dropped); `all` is websearch_to_tsquery's syntax. */
export function tsQuery(input: SearchInput): Prisma.Sql {
  if (input.match === "all") return Prisma.sql`websearch_to_tsquery('english', ${input.query})`;
  return Prisma.sql`(SELECT COALESCE(string_agg(quote_literal(l), ' | '), '')::tsquery
    FROM unnest(tsvector_to_array(to_tsvector('english', ${input.query}))) AS l)`;
}

const factFilter = (input: SearchInput, now: Date) =>
  Prisma.sql`f.context_id = ${input.contextId}::uuid AND ${visibleTo("f", input.scope)} AND ${knownAt("f", undefined)} AND ${validAt("f", now)}`;

const factLink = (entity: string) =>
  Prisma.sql`jsonb_build_object('fact_id', f.id, 'entity_id', ${Prisma.raw(entity)}, 'assertion_id', a.id, 'turn_id', a.turn_id,
    'document_id', a.document_id, 'start_byte', a.start_byte, 'end_byte', a.end_byte)`;

/** Documents carry their scope in metadata.scope (a list of key=value), set at ingest. */
const documentScope = Prisma.sql`ARRAY(SELECT jsonb_array_elements_text(
  CASE WHEN jsonb_typeof(d.metadata->'scope') = 'array' THEN d.metadata->'scope' ELSE '[]'::jsonb END))`;

const RETRIEVERS: Record<SearchKind, (input: SearchInput, now: Date) => Retriever> = {
  attribute: (input, now) => ({
    vector: Prisma.sql`s.name || ' ' || replace(f.key, '_', ' ') || ' ' || f.value`,
    text: Prisma.sql`s.name || ' ' || f.key || ': ' || f.value`,
    link: factLink("f.entity_id"),
    from: Prisma.sql`attributes f JOIN entities s ON s.id = f.entity_id JOIN assertions a ON a.id = f.assertion_id`,
    where: factFilter(input, now),
  }),
  relation: (input, now) => ({
    vector: Prisma.sql`s.name || ' ' || replace(f.predicate, '_', ' ') || ' ' || o.name`,
    text: Prisma.sql`s.name || ' ' || f.predicate || ' ' || o.name`,
    link: factLink("f.subject_id"),
    from: Prisma.sql`relations f JOIN entities s ON s.id = f.subject_id JOIN entities o ON o.id = f.object_id
      JOIN assertions a ON a.id = f.assertion_id`,
    where: factFilter(input, now),
  }),
  instruction: (input) => ({
    vector: Prisma.sql`f.label || ' ' || f.description`,
    text: Prisma.sql`f.label || ': ' || f.description`,
    link: Prisma.sql`jsonb_build_object('instruction_id', f.id, 'turn_id', f.turn_id, 'document_id', f.document_id,
      'start_byte', f.start_byte, 'end_byte', f.end_byte)`,
    from: Prisma.sql`instructions f`,
    where: Prisma.sql`f.context_id = ${input.contextId}::uuid AND ${visibleTo("f", input.scope)} AND f.active AND f.retracted_at IS NULL`,
  }),
  turn: (input) => ({
    vector: Prisma.sql`f.content`,
    text: Prisma.sql`f.content`,
    link: Prisma.sql`jsonb_build_object('turn_id', f.id, 'session_id', f.session_id, 'seq', f.seq, 'start_byte', 0, 'end_byte', octet_length(f.content))`,
    from: Prisma.sql`turns f`,
    where: Prisma.sql`f.context_id = ${input.contextId}::uuid AND ${visibleTo("f", input.scope)}`,
  }),
  document_node: (input) => ({
    vector: Prisma.sql`f.text`,
    text: Prisma.sql`f.text`,
    link: Prisma.sql`jsonb_build_object('document_id', d.id, 'node_id', f.id, 'start_byte', f.start_byte, 'end_byte', f.end_byte)`,
    from: Prisma.sql`document_nodes f JOIN documents d ON d.id = f.document_id`,
    where: Prisma.sql`d.context_id = ${input.contextId}::uuid AND ${documentScope} <@ ${normaliseScope(input.scope)}::text[]`,
  }),
};

/**
 * One retriever's best rows. ts_rank normalisation 1 divides by 1 + log(length), so a
 * long turn does not outrank a short one merely by repeating a word.
 */
function ranked(kind: SearchKind, r: Retriever, limit: number): Prisma.Sql {
  return Prisma.sql`(SELECT ${kind}::text AS kind, f.id, ${r.text} AS text,
      ts_rank(to_tsvector('english', ${r.vector}), q.tsq, 1)::float8 AS raw_score, ${r.link} AS link
    FROM ${r.from}, q WHERE ${r.where} AND to_tsvector('english', ${r.vector}) @@ q.tsq
    ORDER BY raw_score DESC, f.id LIMIT ${limit})`;
}

/** One statement per kind, so the kinds run in parallel on separate connections and the slowest bounds the latency. */
export function searchStatements(input: SearchInput, now: Date): Prisma.Sql[] {
  return input.kinds.map(
    (kind) => Prisma.sql`WITH q AS (SELECT ${tsQuery(input)} AS tsq) ${ranked(kind, RETRIEVERS[kind](input, now), input.limit)}`,
  );
}
