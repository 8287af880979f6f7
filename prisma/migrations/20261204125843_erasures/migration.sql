-- AlterTable
ALTER TABLE "idempotency_keys" ADD COLUMN     "input_ids" UUID[] DEFAULT ARRAY[]::UUID[];

-- CreateTable
CREATE TABLE "erasures" (
    "id" UUID NOT NULL,
    "context_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "request" JSONB NOT NULL,
    "erased" JSONB NOT NULL,
    "already_erased" JSONB NOT NULL DEFAULT '{}',
    "counts" JSONB NOT NULL,
    "hash" TEXT NOT NULL,
    "complete" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "erasures_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "erased_inputs" (
    "input_id" UUID NOT NULL,
    "context_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "erasure_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "erased_inputs_pkey" PRIMARY KEY ("input_id")
);

-- CreateIndex
CREATE INDEX "erasures_context_id_created_at_idx" ON "erasures"("context_id", "created_at");

-- CreateIndex
CREATE INDEX "erased_inputs_context_id_idx" ON "erased_inputs"("context_id");

