-- CreateIndex
CREATE INDEX "reviews_status_seq_idx" ON "reviews"("status", "seq");

