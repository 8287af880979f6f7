-- CreateEnum
CREATE TYPE "EmbeddingOwner" AS ENUM ('fact', 'instruction', 'turn', 'document_node');

-- CreateTable
CREATE TABLE "embeddings" (
    "id" UUID NOT NULL,
    "context_id" UUID NOT NULL,
    "owner_kind" "EmbeddingOwner" NOT NULL,
    "owner_id" UUID NOT NULL,
    "model" TEXT NOT NULL,
    "dimensions" INTEGER NOT NULL,
    "vector" DOUBLE PRECISION[],
    "scope" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "embeddings_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "embeddings_context_id_model_owner_kind_idx" ON "embeddings"("context_id", "model", "owner_kind");

-- CreateIndex
CREATE UNIQUE INDEX "embeddings_owner_kind_owner_id_model_key" ON "embeddings"("owner_kind", "owner_id", "model");

