-- AlterEnum
ALTER TYPE "WorkStatus" ADD VALUE 'cancelled';

-- AlterTable
ALTER TABLE "work_attempts" ADD COLUMN     "trace_id" TEXT,
ADD COLUMN     "wall_ms" INTEGER;

-- CreateIndex
CREATE INDEX "work_items_status_created_at_idx" ON "work_items"("status", "created_at");

