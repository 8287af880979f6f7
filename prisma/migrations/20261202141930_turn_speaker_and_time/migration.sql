-- AlterTable
ALTER TABLE "turns" ADD COLUMN     "occurred_at" TIMESTAMPTZ(3),
ADD COLUMN     "speaker" TEXT;

