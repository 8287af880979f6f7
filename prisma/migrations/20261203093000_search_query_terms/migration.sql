-- The query side of BM25 (packages/memory/src/read/search-bm25.ts) as one function: the query's lexemes (stemmed,
-- stop words dropped) with their idf from a context's term statistics, and the kinds' average row length. As CTEs
-- of every search statement it was planned anew on each query (the planner's time exceeded the execution's);
-- plpgsql keeps its plans for the session. Hand-written: Prisma cannot express functions.
CREATE FUNCTION recall_query_terms(ctx uuid, kinds text[], query text)
RETURNS TABLE (term text, idf float8, avg_len float8)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
DECLARE
  total float8;
  average float8;
BEGIN
  SELECT COALESCE(sum(s.docs), 0), COALESCE(sum(s.total_length)::float8 / NULLIF(sum(s.docs), 0), 1)
    INTO total, average
    FROM search_doc_stats s WHERE s.context_id = ctx AND s.kind = ANY(kinds);
  RETURN QUERY
    SELECT l.lexeme, ln(1 + (GREATEST(total - COALESCE(df.docs, 0), 0) + 0.5) / (COALESCE(df.docs, 0) + 0.5)), average
    FROM (SELECT DISTINCT x AS lexeme FROM unnest(tsvector_to_array(to_tsvector('english', query))) AS x) l
    LEFT JOIN LATERAL (SELECT sum(st.docs)::float8 AS docs FROM search_term_stats st
      WHERE st.context_id = ctx AND st.kind = ANY(kinds) AND st.lexeme = l.lexeme) df ON TRUE;
END
$$;
