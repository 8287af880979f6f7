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
 * CTEs `w` (the query's lexemes with their idf, from recall_query_terms(), whose plan
 * plpgsql keeps) and `q` (the tsquery that finds candidates, the kind's average row length
 * and the terms). The tsquery comes from the bound text through IMMUTABLE functions, so the
 * planner costs the GIN index from the column's statistics.
 */
export function queryTerms(kind: SearchKind, contextId: string, intent: SearchIntent, tsq: Prisma.Sql): Prisma.Sql {
  const kinds = STAT_KINDS[kind] ?? SOURCE_TEXT_KINDS;
  return Prisma.sql`w AS MATERIALIZED (SELECT * FROM recall_query_terms(${contextId}::uuid, ${kinds}::text[], ${intent.text})),
    q AS (SELECT ${tsq} AS tsq, max(avg_len) AS avg_len, array_agg(term) AS terms FROM w HAVING count(*) > 0)`;
}

/**
 * A lateral subquery `bm` (s): the BM25 score of the current row of `m` (which has `tsv`);
 * the FROM clause must also hold `q`. A term's frequency in the row is its number of word
 * positions, read only for the query's terms the row contains (`@@` against each term's
 * tsquery is a check on the stored tsvector; ts_delete keeps just those lexemes before they
 * are unnested). `normalise` false for short derived texts (b = 0).
 */
export function bm25Lateral(normalise: boolean): Prisma.Sql {
  const b = normalise ? BM25.b : 0;
  const tf = Prisma.sql`GREATEST(cardinality(u.positions), 1)`;
  return Prisma.sql`CROSS JOIN LATERAL (
      SELECT COALESCE(sum(w.idf * ${tf} * ${BM25.k1 + 1}::float8
        / (${tf} + ${BM25.k1}::float8 * (1 - ${b}::float8 + ${b}::float8 * length(m.tsv) / GREATEST(q.avg_len, 1)))), 0) AS s
      FROM unnest(ts_filter(setweight(m.tsv, 'A', q.terms), '{a}')) AS u JOIN w ON w.term = u.lexeme) AS bm`;
}
