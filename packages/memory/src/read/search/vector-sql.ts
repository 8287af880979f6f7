// Vector retrievers, one SELECT per kind of text, run side by side like the full-text
// ones and under the same rules (visibleRows): each ranks the stored embeddings of its
// kind by recall_cosine() against the query's vector, in Postgres. The embeddings'
// own scope set is filtered first (the scope rule, read/sql-fragments.ts), so similarity is only computed
// for rows the reader may see. Every such row is scanned (about 0.3 ms each at 1,536
// dimensions); pgvector with an hnsw or ivfflat index is the drop-in for large contexts (README).
import { Prisma } from "@recall/db";
import { OWNER_OF } from "./embedder";
import { visibleTo } from "../sql-fragments";
import { TEXT_SOURCES, visibleRows } from "./search-sql";
import type { SearchInput, SearchKind } from "./search-types";

export interface VectorQuery {
  model: string;
  vector: number[];
  /** pgvector's cosine distance over vector(n) (an HNSW index serves it), else recall_cosine() over every row. */
  pgvector?: boolean;
}

/** Cosine similarity of a stored vector and the query's, in the way the index in use can serve. */
function similarity(query: VectorQuery): Prisma.Sql {
  if (!query.pgvector) return Prisma.sql`recall_cosine(e.vector, ${query.vector}::float8[])`;
  const n = Prisma.raw(String(Math.trunc(query.vector.length)));
  return Prisma.sql`(1 - (e.vector::vector(${n}) <=> ${query.vector}::float8[]::vector(${n})))`;
}

/**
 * A vector with no positive similarity to the query is no evidence of relevance; without
 * this floor every query would fill its list with whatever is in scope.
 */
const MIN_SIMILARITY = 0;

/**
 * The floor is applied outside the LIMITed subquery: a filter on raw_score next to the
 * ORDER BY would let the planner compute the similarity twice per row.
 */
function nearest(kind: SearchKind, input: SearchInput, now: Date, query: VectorQuery): Prisma.Sql {
  const r = TEXT_SOURCES[kind];
  return Prisma.sql`SELECT * FROM (
      SELECT ${kind}::text AS kind, f.id, ${r.text} AS text, ${similarity(query)} AS raw_score, ${r.link} AS link
      FROM ${r.from} JOIN embeddings e ON e.owner_id = f.id
      WHERE e.context_id = ${input.contextId}::uuid AND e.owner_kind = ${OWNER_OF[kind]}::"EmbeddingOwner"
        AND e.model = ${query.model} AND e.dimensions = ${query.vector.length}
        AND ${visibleTo("e", input.scope)} AND ${visibleRows(kind, input, now)}
      ORDER BY raw_score DESC NULLS LAST, f.id LIMIT ${input.limit}
    ) nearest
    WHERE raw_score > ${MIN_SIMILARITY}
    ORDER BY raw_score DESC, id`;
}

export function vectorStatements(input: SearchInput, now: Date, query: VectorQuery): Prisma.Sql[] {
  return input.kinds.map((kind) => nearest(kind, input, now, query));
}
