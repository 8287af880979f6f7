-- AlterEnum
ALTER TYPE "ErrorClass" ADD VALUE 'abandoned';

