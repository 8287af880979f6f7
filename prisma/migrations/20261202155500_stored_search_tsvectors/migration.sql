-- Full-text search (POST /api/v1/{context_id}/query) reads tsvectors stored with each row
-- instead of parsing the text of every candidate row on every query, for the @@ match and
-- again for ts_rank. The columns are GENERATED ... STORED, so every writer keeps them
-- current without knowing about them. Hand-written: Prisma cannot create generated columns;
-- schema.prisma declares them as Unsupported("tsvector") with the same expression as a
-- dbgenerated default (see there). packages/memory/src/read/search-sql.ts reads them.
--
-- A generated column sees only its own row, so a fact's text (subject name, key or
-- predicate, value or object name) is stored in parts and joined with tsvector `||` at
-- query time: entities.name_tsv, attributes.search_tsv, relations.predicate_tsv.
-- Facts are narrowed to the context, the reader's scope and the current instant by their
-- b-tree indexes first, so a GIN index over one part would never be used; turns,
-- document nodes and instructions get one.
--
-- Adding a stored column rewrites the table under an ACCESS EXCLUSIVE lock.

-- AlterTable
ALTER TABLE "turns" ADD COLUMN "content_tsv" tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, "content")) STORED;

-- AlterTable
ALTER TABLE "document_nodes" ADD COLUMN "text_tsv" tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, "text")) STORED;

-- AlterTable
ALTER TABLE "instructions" ADD COLUMN "search_tsv" tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, "label" || ' ' || "description")) STORED;

-- AlterTable
ALTER TABLE "entities" ADD COLUMN "name_tsv" tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, "name")) STORED;

-- AlterTable
ALTER TABLE "attributes" ADD COLUMN "search_tsv" tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, replace("key", '_', ' ') || ' ' || "value")) STORED;

-- AlterTable
ALTER TABLE "relations" ADD COLUMN "predicate_tsv" tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, replace("predicate", '_', ' '))) STORED;

-- The expression indexes of 20261202133500_read_model_search_indexes are replaced by
-- indexes on the stored columns.

-- DropIndex
DROP INDEX "turns_content_fts_idx";

-- DropIndex
DROP INDEX "document_nodes_text_fts_idx";

-- CreateIndex
CREATE INDEX "turns_content_tsv_idx" ON "turns" USING GIN ("content_tsv");

-- CreateIndex
CREATE INDEX "document_nodes_text_tsv_idx" ON "document_nodes" USING GIN ("text_tsv");

-- CreateIndex
CREATE INDEX "instructions_search_tsv_idx" ON "instructions" USING GIN ("search_tsv");

-- The tsquery of a `match: "any"` search: the query's own lexemes (stemmed, stop words
-- dropped) ORed. As a subquery in the statement it was an InitPlan the planner knows
-- nothing about, so it guessed how many rows match; a cheap stored-column filter then made
-- a sequential scan of the whole table look cheaper than the GIN index. IMMUTABLE, so
-- with the query text bound it is computed once while planning, and the planner costs the
-- index scan from the column's statistics.
CREATE FUNCTION recall_any_tsquery(query text) RETURNS tsquery
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$
  SELECT COALESCE(string_agg(quote_literal(l), ' | '), '')::tsquery
  FROM unnest(tsvector_to_array(to_tsvector('english', query))) AS l
$$;
