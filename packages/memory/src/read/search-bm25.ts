// BM25 in Postgres for POST /query's full-text retrievers. The collection statistics are
// kept per context by triggers on the write path (migration
// 20261203081500_search_term_stat_triggers): search_doc_stats (rows and summed length per
// kind) and search_term_stats (rows containing each lexeme). A query's lexemes get
// idf = ln(1 + (N − df + 0.5) / (df + 0.5)), so a word said in every turn weighs little and
// a rare one much; recall_bm25() scores a row from its stored tsvector (tf from word
// positions, length normalisation against the kind's average). Stop words never become
// lexemes. Facts and instructions have no statistics of their own: they are short texts
// derived from turns and documents, so they take idf from those and no length normalisation.
import { Prisma } from "@recall/db";
import type { SearchIntent } from "./search-intent";
import type { SearchKind } from "./search-types";

export const BM25 = { k1: 1.2, b: 0.75 };

/** Kinds whose rows have their own statistics; the others borrow these. */
const STAT_KINDS: Partial<Record<SearchKind, string[]>> = { turn: ["turn"], document_node: ["document_node"] };
const SOURCE_TEXT_KINDS = ["turn", "document_node"];

/**
 * `q`: the query's lexemes with their idf, the average row length, and the tsquery that
 * finds candidates. The tsquery comes from the bound text through IMMUTABLE functions, so
 * the planner costs the GIN index from the column's statistics.
 */
export function queryTerms(kind: SearchKind, contextId: string, intent: SearchIntent, tsq: Prisma.Sql): Prisma.Sql {
  const kinds = STAT_KINDS[kind] ?? SOURCE_TEXT_KINDS;
  return Prisma.sql`n AS (
      SELECT COALESCE(sum(docs), 0)::float8 AS docs, COALESCE(sum(total_length)::float8 / NULLIF(sum(docs), 0), 1) AS avg_len
      FROM search_doc_stats WHERE context_id = ${contextId}::uuid AND kind = ANY(${kinds}::text[])),
    t AS (SELECT DISTINCT term FROM unnest(tsvector_to_array(to_tsvector('english', ${intent.text}))) AS term),
    df AS (SELECT lexeme, sum(docs)::float8 AS docs FROM search_term_stats
      WHERE context_id = ${contextId}::uuid AND kind = ANY(${kinds}::text[]) AND lexeme IN (SELECT term FROM t) GROUP BY lexeme),
    q AS (SELECT ${tsq} AS tsq, n.avg_len,
        COALESCE(array_agg(t.term), '{}') AS terms,
        COALESCE(array_agg(ln(1 + (GREATEST(n.docs - COALESCE(df.docs, 0), 0) + 0.5) / (COALESCE(df.docs, 0) + 0.5))), '{}') AS idfs
      FROM n CROSS JOIN t LEFT JOIN df ON df.lexeme = t.term GROUP BY n.avg_len)`;
}

/** BM25 of a row's tsvector against `q`; `normalise` false for short derived texts (b = 0). */
export function bm25(tsv: Prisma.Sql, normalise: boolean): Prisma.Sql {
  const b = normalise ? BM25.b : 0;
  return Prisma.sql`recall_bm25(${tsv}, q.terms, q.idfs, q.avg_len, ${BM25.k1}::float8, ${b}::float8)`;
}
