-- BM25 for full-text search (POST /query; packages/memory/src/read/search-bm25.ts computes the score in each statement). ts_rank has no
-- inverse document frequency, so a word in every turn weighs as much as a rare one. These triggers keep
-- per-context term statistics current from the write path: how many turns (document nodes) contain each
-- lexeme, how many there are and their summed length (in distinct lexemes, length(tsvector), which BM25 uses as
-- a row's length). They are statement-level with transition tables, so
-- a bulk insert of a document's nodes costs one upsert per distinct lexeme, not one per row. Every writer
-- in a context takes the (context, kind) row of search_doc_stats first and the lexeme rows in sorted order,
-- so concurrent writers queue on the same lock order and cannot deadlock. Hand-written: Prisma cannot
-- express functions or triggers.

-- Adds (sign 1) or removes (sign -1) rows' tsvectors from their contexts' statistics.
CREATE FUNCTION recall_search_stats_apply(stat_kind text, contexts uuid[], tsvs tsvector[], sign integer)
RETURNS void
LANGUAGE sql VOLATILE
AS $$
  INSERT INTO search_doc_stats AS s (context_id, kind, docs, total_length)
  SELECT r.ctx, stat_kind, sign * count(*), sign * COALESCE(sum(length(r.tsv)), 0)
  FROM unnest(contexts, tsvs) AS r(ctx, tsv) WHERE r.ctx IS NOT NULL
  GROUP BY r.ctx ORDER BY r.ctx
  ON CONFLICT (context_id, kind) DO UPDATE
    SET docs = s.docs + EXCLUDED.docs, total_length = s.total_length + EXCLUDED.total_length;
  INSERT INTO search_term_stats AS s (context_id, kind, lexeme, docs)
  SELECT r.ctx, stat_kind, l.lexeme, sign * count(*)
  FROM unnest(contexts, tsvs) AS r(ctx, tsv), unnest(tsvector_to_array(r.tsv)) AS l(lexeme) WHERE r.ctx IS NOT NULL
  GROUP BY r.ctx, l.lexeme ORDER BY r.ctx, l.lexeme
  ON CONFLICT (context_id, kind, lexeme) DO UPDATE SET docs = s.docs + EXCLUDED.docs;
$$;

CREATE FUNCTION recall_turn_search_stats() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    PERFORM recall_search_stats_apply('turn', array_agg(context_id), array_agg(content_tsv), -1) FROM old_rows;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM recall_search_stats_apply('turn', array_agg(context_id), array_agg(content_tsv), 1) FROM new_rows;
  END IF;
  RETURN NULL;
END
$$;

-- A node's context is its document's. A document deleted in the same statement (cascade) is gone by now,
-- so its nodes are not subtracted; documents are never deleted by the service (retraction keeps rows).
CREATE FUNCTION recall_node_search_stats() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    PERFORM recall_search_stats_apply('document_node', array_agg(d.context_id), array_agg(n.text_tsv), -1)
    FROM old_rows n JOIN documents d ON d.id = n.document_id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM recall_search_stats_apply('document_node', array_agg(d.context_id), array_agg(n.text_tsv), 1)
    FROM new_rows n JOIN documents d ON d.id = n.document_id;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER turns_search_stats_insert AFTER INSERT ON turns
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION recall_turn_search_stats();
CREATE TRIGGER turns_search_stats_delete AFTER DELETE ON turns
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION recall_turn_search_stats();
CREATE TRIGGER turns_search_stats_update AFTER UPDATE ON turns
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION recall_turn_search_stats();

CREATE TRIGGER document_nodes_search_stats_insert AFTER INSERT ON document_nodes
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION recall_node_search_stats();
CREATE TRIGGER document_nodes_search_stats_delete AFTER DELETE ON document_nodes
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION recall_node_search_stats();
CREATE TRIGGER document_nodes_search_stats_update AFTER UPDATE ON document_nodes
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION recall_node_search_stats();

-- Statistics of the rows already stored.
SELECT recall_search_stats_apply('turn', array_agg(context_id), array_agg(content_tsv), 1) FROM turns;
SELECT recall_search_stats_apply('document_node', array_agg(d.context_id), array_agg(n.text_tsv), 1)
FROM document_nodes n JOIN documents d ON d.id = n.document_id;
