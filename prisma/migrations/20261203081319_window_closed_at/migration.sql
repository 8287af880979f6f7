-- AlterTable
ALTER TABLE "extraction_windows" ADD COLUMN     "closed_at" TIMESTAMPTZ(3);

