-- A turn's attachments (images, files, links: issue #43) and their text, one line each, which with the content is
-- the turn's source text (`turnSourceText` in @recall/contracts). Full-text search must find a caption, so the
-- generated content_tsv now covers the attachment text too. Hand-written for that part: Prisma cannot change a
-- generated column's expression, so the column is dropped and added again (which drops and recreates its index).
-- Turns without attachments index the same lexemes as before (content || ' ' adds none), so the search term
-- statistics kept by recall_turn_search_stats stay right without a recount; ALTER TABLE fires no trigger.
--
-- Re-adding a stored column rewrites the table under an ACCESS EXCLUSIVE lock.

-- AlterTable
ALTER TABLE "turns" ADD COLUMN     "attachment_text" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "attachments" JSONB NOT NULL DEFAULT '[]';

-- AlterTable
ALTER TABLE "turns" DROP COLUMN "content_tsv";
ALTER TABLE "turns" ADD COLUMN "content_tsv" tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, "content" || ' ' || "attachment_text")) STORED;

-- CreateIndex
CREATE INDEX "turns_content_tsv_idx" ON "turns" USING GIN ("content_tsv");
