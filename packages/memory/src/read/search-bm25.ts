// BM25 in Postgres for POST /query's full-text retrievers. The collection statistics are
// kept per context by triggers on the write path (migration
// 20261203081500_search_term_stat_triggers): search_doc_stats (rows and summed length per
// kind) and search_term_stats (rows containing each lexeme). A query's lexemes get
// idf = ln(1 + (N − df + 0.5) / (df + 0.5)), so a word said in every turn weighs little and
// a rare one much. A row's score is computed in the statement itself from its stored
// tsvector: tf from the lexeme's word positions, the length as its number of distinct
// lexemes (length(tsvector), what the statistics sum), normalised against the kind's
// average. Stop words never become lexemes. Facts and instructions have no statistics of
// their own: they are short texts derived from turns and documents, so they take idf from
// those and no length normalisation.
import { Prisma } from "@recall/db";
import type { SearchIntent } from "./search-intent";
import type { SearchKind } from "./search-types";

export const BM25 = { k1: 1.2, b: 0.75 };

/** Kinds whose rows have their own statistics; the others borrow these. */
const STAT_KINDS: Partial<Record<SearchKind, string[]>> = { turn: ["turn"], document_node: ["document_node"] };
const SOURCE_TEXT_KINDS = ["turn", "document_node"];

/**
 * CTEs `q` (the tsquery that finds candidates, and the kind's average row length) and `w`
 * (the query's lexemes with their idf). The tsquery comes from the bound text through
 * IMMUTABLE functions, so the planner costs the GIN index from the column's statistics.
 */
export function queryTerms(kind: SearchKind, contextId: string, intent: SearchIntent, tsq: Prisma.Sql): Prisma.Sql {
  const kinds = STAT_KINDS[kind] ?? SOURCE_TEXT_KINDS;
  return Prisma.sql`n AS (
      SELECT COALESCE(sum(docs), 0)::float8 AS docs, COALESCE(sum(total_length)::float8 / NULLIF(sum(docs), 0), 1) AS avg_len
      FROM search_doc_stats WHERE context_id = ${contextId}::uuid AND kind = ANY(${kinds}::text[])),
    t AS (SELECT DISTINCT term FROM unnest(tsvector_to_array(to_tsvector('english', ${intent.text}))) AS term),
    df AS (SELECT lexeme, sum(docs)::float8 AS docs FROM search_term_stats
      WHERE context_id = ${contextId}::uuid AND kind = ANY(${kinds}::text[]) AND lexeme IN (SELECT term FROM t) GROUP BY lexeme),
    w AS MATERIALIZED (SELECT t.term, ln(1 + (GREATEST(n.docs - COALESCE(df.docs, 0), 0) + 0.5) / (COALESCE(df.docs, 0) + 0.5)) AS idf
      FROM n CROSS JOIN t LEFT JOIN df ON df.lexeme = t.term),
    q AS (SELECT ${tsq} AS tsq, n.avg_len FROM n WHERE EXISTS (SELECT 1 FROM t))`;
}

/**
 * A lateral subquery `bm` (s): the BM25 score of the current row of `m` (which has `tsv`), run
 * once per row; the FROM clause must also hold `q`. `normalise` false for short derived texts (b = 0).
 */
export function bm25Lateral(normalise: boolean): Prisma.Sql {
  const b = normalise ? BM25.b : 0;
  const tf = Prisma.sql`GREATEST(cardinality(u.positions), 1)`;
  return Prisma.sql`CROSS JOIN LATERAL (
      SELECT COALESCE(sum(w.idf * ${tf} * ${BM25.k1 + 1}::float8
        / (${tf} + ${BM25.k1}::float8 * (1 - ${b}::float8 + ${b}::float8 * length(m.tsv) / GREATEST(q.avg_len, 1)))), 0) AS s
      FROM unnest(m.tsv) AS u JOIN w ON w.term = u.lexeme) AS bm`;
}
