-- CreateIndex
CREATE INDEX "work_attempts_trace_id_idx" ON "work_attempts"("trace_id");

-- CreateIndex
CREATE INDEX "work_items_trace_id_idx" ON "work_items"("trace_id");

