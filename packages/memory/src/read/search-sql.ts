// Full-text retrievers, one SELECT per kind of text, run side by side. The
// tsvector expressions over turns and document nodes match the GIN indexes of
// prisma/migrations/20261202133500_read_model_search_indexes exactly, so the planner
// uses them; fact and instruction text is short and already narrowed to the context,
// the reader's scope and the current instant by b-tree indexes, so it is computed inline.
// TEXT_SOURCES and visibleRows are shared with vector search (vector-sql.ts) and the
// embedding writer, so every retriever shows the same text under the same rules.
import { Prisma } from "@recall/db";
import { normaliseScope } from "../scope";
import type { ReaderScope } from "./read-types";
import { knownAt, validAt } from "./sql-fragments";
import type { SearchInput, SearchKind } from "./search-types";

/** Where one kind of text lives and how it reads; `f` is the row that owns the text. */
export interface TextSource {
  /** The text the tsvector is built from. */
  indexed: Prisma.Sql;
  /** The text a caller sees, and the text that is embedded. */
  text: Prisma.Sql;
  link: Prisma.Sql;
  from: Prisma.Sql;
  context: Prisma.Sql;
  /** The scope the text was written in. */
  scope: Prisma.Sql;
}

/** `any` ORs the query's own lexemes (stemmed, stop words dropped); `all` is websearch_to_tsquery's syntax. */
export function tsQuery(input: SearchInput): Prisma.Sql {
  if (input.match === "all") return Prisma.sql`websearch_to_tsquery('english', ${input.query})`;
  return Prisma.sql`(SELECT COALESCE(string_agg(quote_literal(l), ' | '), '')::tsquery
    FROM unnest(tsvector_to_array(to_tsvector('english', ${input.query}))) AS l)`;
}

const factLink = (entity: string) =>
  Prisma.sql`jsonb_build_object('fact_id', f.id, 'entity_id', ${Prisma.raw(entity)}, 'assertion_id', a.id, 'turn_id', a.turn_id,
    'document_id', a.document_id, 'start_byte', a.start_byte, 'end_byte', a.end_byte)`;

/** Documents carry their scope in metadata.scope (a list of key=value), set at ingest. */
const documentScope = Prisma.sql`ARRAY(SELECT jsonb_array_elements_text(
  CASE WHEN jsonb_typeof(d.metadata->'scope') = 'array' THEN d.metadata->'scope' ELSE '[]'::jsonb END))`;

const ownScope = Prisma.sql`f.scope`;
const ownContext = Prisma.sql`f.context_id`;

export const TEXT_SOURCES: Record<SearchKind, TextSource> = {
  attribute: {
    indexed: Prisma.sql`s.name || ' ' || replace(f.key, '_', ' ') || ' ' || f.value`,
    text: Prisma.sql`s.name || ' ' || f.key || ': ' || f.value`,
    link: factLink("f.entity_id"),
    from: Prisma.sql`attributes f JOIN entities s ON s.id = f.entity_id JOIN assertions a ON a.id = f.assertion_id`,
    context: ownContext,
    scope: ownScope,
  },
  relation: {
    indexed: Prisma.sql`s.name || ' ' || replace(f.predicate, '_', ' ') || ' ' || o.name`,
    text: Prisma.sql`s.name || ' ' || f.predicate || ' ' || o.name`,
    link: factLink("f.subject_id"),
    from: Prisma.sql`relations f JOIN entities s ON s.id = f.subject_id JOIN entities o ON o.id = f.object_id
      JOIN assertions a ON a.id = f.assertion_id`,
    context: ownContext,
    scope: ownScope,
  },
  instruction: {
    indexed: Prisma.sql`f.label || ' ' || f.description`,
    text: Prisma.sql`f.label || ': ' || f.description`,
    link: Prisma.sql`jsonb_build_object('instruction_id', f.id, 'turn_id', f.turn_id, 'document_id', f.document_id,
      'start_byte', f.start_byte, 'end_byte', f.end_byte)`,
    from: Prisma.sql`instructions f`,
    context: ownContext,
    scope: ownScope,
  },
  turn: {
    indexed: Prisma.sql`f.content`,
    text: Prisma.sql`f.content`,
    link: Prisma.sql`jsonb_build_object('turn_id', f.id, 'session_id', f.session_id, 'seq', f.seq, 'start_byte', 0, 'end_byte', octet_length(f.content))`,
    from: Prisma.sql`turns f`,
    context: ownContext,
    scope: ownScope,
  },
  document_node: {
    indexed: Prisma.sql`f.text`,
    text: Prisma.sql`f.text`,
    link: Prisma.sql`jsonb_build_object('document_id', d.id, 'node_id', f.id, 'start_byte', f.start_byte, 'end_byte', f.end_byte)`,
    from: Prisma.sql`document_nodes f JOIN documents d ON d.id = f.document_id`,
    context: Prisma.sql`d.context_id`,
    scope: documentScope,
  },
};

/** Facts current at `now`, active instructions, and every turn and document node: each within the reader's scope. */
export function visibleRows(kind: SearchKind, reader: ReaderScope, now: Date): Prisma.Sql {
  const source = TEXT_SOURCES[kind];
  const inScope = Prisma.sql`${source.context} = ${reader.contextId}::uuid AND ${source.scope} <@ ${normaliseScope(reader.scope)}::text[]`;
  if (kind === "attribute" || kind === "relation") return Prisma.sql`${inScope} AND ${knownAt("f", undefined)} AND ${validAt("f", now)}`;
  if (kind === "instruction") return Prisma.sql`${inScope} AND f.active AND f.retracted_at IS NULL`;
  return inScope;
}

/**
 * One retriever's best rows. ts_rank normalisation 1 divides by 1 + log(length), so a
 * long turn does not outrank a short one merely by repeating a word.
 */
function ranked(kind: SearchKind, input: SearchInput, now: Date): Prisma.Sql {
  const r = TEXT_SOURCES[kind];
  return Prisma.sql`(SELECT ${kind}::text AS kind, f.id, ${r.text} AS text,
      ts_rank(to_tsvector('english', ${r.indexed}), q.tsq, 1)::float8 AS raw_score, ${r.link} AS link
    FROM ${r.from}, q WHERE ${visibleRows(kind, input, now)} AND to_tsvector('english', ${r.indexed}) @@ q.tsq
    ORDER BY raw_score DESC, f.id LIMIT ${input.limit})`;
}

/** One statement per kind, so the kinds run in parallel on separate connections and the slowest bounds the latency. */
export function searchStatements(input: SearchInput, now: Date): Prisma.Sql[] {
  return input.kinds.map((kind) => Prisma.sql`WITH q AS (SELECT ${tsQuery(input)} AS tsq) ${ranked(kind, input, now)}`);
}
