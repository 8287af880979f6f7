-- Full-text search over retained raw text (POST /api/v1/{context_id}/query).
-- Hand-written: Prisma cannot express expression indexes, and because they are
-- expression indexes `prisma migrate diff` ignores them (no drift, nothing dropped).
-- The expressions must stay byte-for-byte what packages/memory/src/read/search-sql.ts
-- queries, or the planner will not use them.

-- CreateIndex
CREATE INDEX "turns_content_fts_idx" ON "turns" USING GIN (to_tsvector('english', "content"));

-- CreateIndex
CREATE INDEX "document_nodes_text_fts_idx" ON "document_nodes" USING GIN (to_tsvector('english', "text"));
