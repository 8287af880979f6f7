-- AlterEnum (PostgreSQL 12+ takes several ADD VALUEs in one transaction; none is used before it commits)
ALTER TYPE "CandidateStatus" ADD VALUE IF NOT EXISTS 'pending_review';
ALTER TYPE "CandidateStatus" ADD VALUE IF NOT EXISTS 'approved';
ALTER TYPE "CandidateStatus" ADD VALUE IF NOT EXISTS 'rejected';

-- CreateTable
CREATE TABLE "reviews" (
    "id" UUID NOT NULL,
    "seq" SERIAL NOT NULL,
    "context_id" UUID NOT NULL,
    "candidate_id" UUID NOT NULL,
    "subject_type" TEXT NOT NULL,
    "subject_id" UUID NOT NULL,
    "session_id" UUID,
    "kind" "CandidateKind" NOT NULL,
    "memory_category" "MemoryCategory",
    "status" TEXT NOT NULL DEFAULT 'pending',
    "edit" JSONB,
    "note" TEXT,
    "commit_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "decided_at" TIMESTAMPTZ(3),
    "committed_at" TIMESTAMPTZ(3),

    CONSTRAINT "reviews_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "review_commits" (
    "id" UUID NOT NULL,
    "context_id" UUID NOT NULL,
    "subject_type" TEXT NOT NULL,
    "subject_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "review_commits_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "reviews_candidate_id_key" ON "reviews"("candidate_id");

-- CreateIndex
CREATE INDEX "reviews_context_id_status_seq_idx" ON "reviews"("context_id", "status", "seq");

-- CreateIndex
CREATE INDEX "reviews_subject_id_idx" ON "reviews"("subject_id");

-- CreateIndex
CREATE INDEX "reviews_commit_id_idx" ON "reviews"("commit_id");

-- CreateIndex
CREATE INDEX "review_commits_subject_id_idx" ON "review_commits"("subject_id");

-- AddForeignKey
ALTER TABLE "reviews" ADD CONSTRAINT "reviews_candidate_id_fkey" FOREIGN KEY ("candidate_id") REFERENCES "knowledge_candidates"("id") ON DELETE CASCADE ON UPDATE CASCADE;

