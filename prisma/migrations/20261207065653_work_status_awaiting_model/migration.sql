-- AlterEnum
ALTER TYPE "WorkStatus" ADD VALUE 'awaiting_model';

