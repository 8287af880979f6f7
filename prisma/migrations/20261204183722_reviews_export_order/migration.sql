-- CreateIndex
CREATE INDEX "reviews_context_id_seq_idx" ON "reviews"("context_id", "seq");

