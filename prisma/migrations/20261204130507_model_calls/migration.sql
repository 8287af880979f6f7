-- CreateTable
CREATE TABLE "model_calls" (
    "id" UUID NOT NULL,
    "context_id" UUID NOT NULL,
    "work_item_id" UUID NOT NULL,
    "attempt" INTEGER NOT NULL,
    "queue" TEXT NOT NULL,
    "stage" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "input_tokens" INTEGER NOT NULL,
    "output_tokens" INTEGER NOT NULL,
    "cost_usd" DOUBLE PRECISION,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "model_calls_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "model_calls_context_id_created_at_idx" ON "model_calls"("context_id", "created_at");

-- CreateIndex
CREATE INDEX "model_calls_created_at_idx" ON "model_calls"("created_at");

