-- CreateEnum
CREATE TYPE "FactKind" AS ENUM ('attribute', 'relation');

-- AlterTable
ALTER TABLE "assertions" ADD COLUMN     "fact_write_id" UUID;

-- AlterTable
ALTER TABLE "instructions" ADD COLUMN     "fact_write_id" UUID,
ADD COLUMN     "retracted_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "uncertainties" ADD COLUMN     "fact_ids" UUID[] DEFAULT ARRAY[]::UUID[],
ADD COLUMN     "fact_write_id" UUID,
ADD COLUMN     "retracted_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "fact_writes" (
    "id" UUID NOT NULL,
    "context_id" UUID NOT NULL,
    "payload" JSONB NOT NULL,
    "text" TEXT NOT NULL,
    "scope" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "trace_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "fact_writes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "entity_mentions" (
    "id" UUID NOT NULL,
    "context_id" UUID NOT NULL,
    "entity_id" UUID NOT NULL,
    "candidate_id" UUID,
    "turn_id" UUID,
    "document_id" UUID,
    "fact_write_id" UUID,
    "scope" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retracted_at" TIMESTAMPTZ(3),

    CONSTRAINT "entity_mentions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "supersessions" (
    "id" UUID NOT NULL,
    "context_id" UUID NOT NULL,
    "fact_kind" "FactKind" NOT NULL,
    "older_id" UUID NOT NULL,
    "newer_id" UUID NOT NULL,
    "valid_to" TIMESTAMPTZ(3) NOT NULL,
    "previous_valid_to" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "undone_at" TIMESTAMPTZ(3),

    CONSTRAINT "supersessions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "fact_writes_context_id_created_at_idx" ON "fact_writes"("context_id", "created_at");

-- CreateIndex
CREATE INDEX "entity_mentions_entity_id_idx" ON "entity_mentions"("entity_id");

-- CreateIndex
CREATE INDEX "entity_mentions_turn_id_idx" ON "entity_mentions"("turn_id");

-- CreateIndex
CREATE INDEX "entity_mentions_document_id_idx" ON "entity_mentions"("document_id");

-- CreateIndex
CREATE INDEX "entity_mentions_fact_write_id_idx" ON "entity_mentions"("fact_write_id");

-- CreateIndex
CREATE UNIQUE INDEX "entity_mentions_candidate_id_entity_id_key" ON "entity_mentions"("candidate_id", "entity_id");

-- CreateIndex
CREATE INDEX "supersessions_older_id_idx" ON "supersessions"("older_id");

-- CreateIndex
CREATE INDEX "supersessions_newer_id_idx" ON "supersessions"("newer_id");

-- CreateIndex
CREATE INDEX "assertions_fact_write_id_idx" ON "assertions"("fact_write_id");

-- CreateIndex
CREATE INDEX "uncertainties_context_id_entity_id_key_idx" ON "uncertainties"("context_id", "entity_id", "key");

-- AddForeignKey
ALTER TABLE "fact_writes" ADD CONSTRAINT "fact_writes_context_id_fkey" FOREIGN KEY ("context_id") REFERENCES "contexts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

