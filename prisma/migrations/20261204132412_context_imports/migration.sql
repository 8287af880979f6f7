-- CreateTable
CREATE TABLE "context_imports" (
    "id" UUID NOT NULL,
    "context_id" UUID NOT NULL,
    "source_context_id" UUID NOT NULL,
    "format_version" INTEGER NOT NULL,
    "lines" INTEGER NOT NULL DEFAULT 0,
    "counts" JSONB NOT NULL DEFAULT '{}',
    "runs" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "context_imports_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "context_imports_context_id_source_context_id_key" ON "context_imports"("context_id", "source_context_id");

