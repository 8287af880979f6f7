-- AlterTable
ALTER TABLE "retractions" ADD COLUMN     "applied_at" TIMESTAMPTZ(3),
ADD COLUMN     "pending" BOOLEAN NOT NULL DEFAULT false;

