-- Retention of the pipeline's own records (issue 46, item 7; packages/pipeline/src/retention). Work past
-- RECALL_PIPELINE_RETENTION_DAYS whose every stage succeeded is compacted: its attempts and extraction plan dropped, its
-- work items' payload cut to what readers of finished work use, and `compacted_at` set. Model calls past it are summed
-- into model_call_days per context, UTC day, stage and model (the statement that deletes a call adds it there), which
-- GET …/usage reads for those days.

-- AlterTable
ALTER TABLE "work_items" ADD COLUMN     "compacted_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "model_call_days" (
    "context_id" UUID NOT NULL,
    "day" DATE NOT NULL,
    "stage" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "calls" INTEGER NOT NULL,
    "input_tokens" BIGINT NOT NULL,
    "output_tokens" BIGINT NOT NULL,
    "cost_usd" DECIMAL NOT NULL,
    "unpriced_calls" INTEGER NOT NULL,

    CONSTRAINT "model_call_days_pkey" PRIMARY KEY ("context_id","day","stage","model")
);

-- CreateIndex
CREATE INDEX "model_call_days_day_idx" ON "model_call_days"("day");

-- What retention still has to look at: succeeded items not yet compacted, in the order a run walks them (finish
-- time, then id). Compacted items leave this index, so a run's cost follows the new work, not the table's age.
-- (Hand-written: Prisma's schema cannot say WHERE.)
CREATE INDEX "work_items_compactable_idx" ON "work_items"("finished_at", "id") WHERE status = 'succeeded' AND compacted_at IS NULL;

-- The same row-level security as every table of a context's rows (20261206030000_policies_by_role).
ALTER TABLE "model_call_days" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "model_call_days" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "model_call_days" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "model_call_days" TO recall_bypass USING (true) WITH CHECK (true);
