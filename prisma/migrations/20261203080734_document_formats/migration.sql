-- AlterTable
ALTER TABLE "document_nodes" ADD COLUMN     "heading_path" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "page" INTEGER;

-- AlterTable
ALTER TABLE "documents" ADD COLUMN     "blob_path" TEXT,
ADD COLUMN     "byte_size" INTEGER,
ADD COLUMN     "file_name" TEXT,
ADD COLUMN     "format" TEXT NOT NULL DEFAULT 'text',
ADD COLUMN     "media_type" TEXT,
ADD COLUMN     "original" BYTEA,
ADD COLUMN     "parsed_at" TIMESTAMPTZ(3),
ADD COLUMN     "previous_version_id" UUID;

-- CreateIndex
CREATE INDEX "documents_context_id_content_hash_idx" ON "documents"("context_id", "content_hash");

-- CreateIndex
CREATE INDEX "documents_source_id_created_at_idx" ON "documents"("source_id", "created_at");


-- Documents stored before this migration were split into nodes at ingest.
UPDATE "documents" d SET "parsed_at" = d."created_at"
WHERE EXISTS (SELECT 1 FROM "document_nodes" n WHERE n."document_id" = d."id");
