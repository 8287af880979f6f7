-- AlterEnum
ALTER TYPE "WorkStatus" ADD VALUE 'waiting';

-- CreateTable
CREATE TABLE "turn_batches" (
    "id" UUID NOT NULL,
    "context_id" UUID NOT NULL,
    "session_id" UUID NOT NULL,
    "first_seq" INTEGER NOT NULL,
    "last_seq" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "turn_batches_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "extraction_windows" (
    "id" UUID NOT NULL,
    "context_id" UUID NOT NULL,
    "session_id" UUID NOT NULL,
    "turn_ids" UUID[],
    "parent_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "extraction_windows_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "turn_batches_context_id_session_id_idx" ON "turn_batches"("context_id", "session_id");

-- CreateIndex
CREATE INDEX "extraction_windows_session_id_idx" ON "extraction_windows"("session_id");

