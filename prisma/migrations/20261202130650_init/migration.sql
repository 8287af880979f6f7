-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "WorkStatus" AS ENUM ('queued', 'running', 'succeeded', 'failed', 'dead');

-- CreateEnum
CREATE TYPE "ErrorClass" AS ENUM ('provider', 'budget', 'validation', 'no_provider', 'internal');

-- CreateEnum
CREATE TYPE "MemoryCategory" AS ENUM ('identity', 'knowledge', 'context');

-- CreateEnum
CREATE TYPE "Significance" AS ENUM ('skip', 'low', 'medium', 'high');

-- CreateEnum
CREATE TYPE "ExtractionStage" AS ENUM ('heuristic', 'fast', 'strong', 'direct');

-- CreateEnum
CREATE TYPE "CandidateStatus" AS ENUM ('pending', 'valid', 'invalid', 'committed');

-- CreateEnum
CREATE TYPE "CandidateKind" AS ENUM ('entity', 'attribute', 'relation', 'instruction', 'uncertainty', 'revocation');

-- CreateTable
CREATE TABLE "contexts" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "config" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "contexts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL,
    "context_id" UUID NOT NULL,
    "prefix" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sources" (
    "id" UUID NOT NULL,
    "context_id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "name" TEXT,
    "external_id" TEXT,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sources_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "documents" (
    "id" UUID NOT NULL,
    "context_id" UUID NOT NULL,
    "source_id" UUID,
    "text" TEXT NOT NULL,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "content_hash" TEXT NOT NULL,
    "trace_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "documents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "document_nodes" (
    "id" UUID NOT NULL,
    "document_id" UUID NOT NULL,
    "ordinal" INTEGER NOT NULL,
    "start_byte" INTEGER NOT NULL,
    "end_byte" INTEGER NOT NULL,
    "text" TEXT NOT NULL,

    CONSTRAINT "document_nodes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sessions" (
    "id" UUID NOT NULL,
    "context_id" UUID NOT NULL,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "turns" (
    "id" UUID NOT NULL,
    "context_id" UUID NOT NULL,
    "session_id" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "role" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "scope" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "trace_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "turns_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "work_items" (
    "id" UUID NOT NULL,
    "context_id" UUID NOT NULL,
    "queue" TEXT NOT NULL,
    "subject_type" TEXT NOT NULL,
    "subject_id" UUID NOT NULL,
    "status" "WorkStatus" NOT NULL DEFAULT 'queued',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "max_attempts" INTEGER NOT NULL,
    "error_class" "ErrorClass",
    "error_message" TEXT,
    "tokens_used" INTEGER NOT NULL DEFAULT 0,
    "wall_ms_used" INTEGER NOT NULL DEFAULT 0,
    "trace_id" TEXT NOT NULL,
    "payload" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "work_items_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "work_attempts" (
    "id" UUID NOT NULL,
    "work_item_id" UUID NOT NULL,
    "attempt" INTEGER NOT NULL,
    "status" "WorkStatus" NOT NULL,
    "error_class" "ErrorClass",
    "error_message" TEXT,
    "tokens_used" INTEGER NOT NULL DEFAULT 0,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "work_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "extraction_plans" (
    "id" UUID NOT NULL,
    "context_id" UUID NOT NULL,
    "subject_type" TEXT NOT NULL,
    "subject_id" UUID NOT NULL,
    "skill_id" TEXT NOT NULL,
    "skill_source" TEXT NOT NULL,
    "purpose" TEXT,
    "purpose_source" TEXT,
    "trace" JSONB NOT NULL DEFAULT '[]',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "extraction_plans_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "knowledge_candidates" (
    "id" UUID NOT NULL,
    "context_id" UUID NOT NULL,
    "work_item_id" UUID NOT NULL,
    "subject_type" TEXT NOT NULL,
    "subject_id" UUID NOT NULL,
    "document_node_id" UUID,
    "turn_id" UUID,
    "ordinal" INTEGER NOT NULL,
    "kind" "CandidateKind" NOT NULL,
    "payload" JSONB NOT NULL,
    "status" "CandidateStatus" NOT NULL DEFAULT 'pending',
    "validation_errors" JSONB,
    "stage" "ExtractionStage" NOT NULL,
    "model" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "knowledge_candidates_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "entities" (
    "id" UUID NOT NULL,
    "context_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "identity_key" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "memory_category" "MemoryCategory" NOT NULL,
    "aliases" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "scope" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retracted_at" TIMESTAMPTZ(3),

    CONSTRAINT "entities_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "assertions" (
    "id" UUID NOT NULL,
    "context_id" UUID NOT NULL,
    "candidate_id" UUID,
    "subject_entity_id" UUID NOT NULL,
    "predicate" TEXT NOT NULL,
    "object_entity_id" UUID,
    "object_literal" TEXT,
    "turn_id" UUID,
    "document_id" UUID,
    "document_node_id" UUID,
    "start_byte" INTEGER NOT NULL,
    "end_byte" INTEGER NOT NULL,
    "quote" TEXT NOT NULL,
    "confidence" DOUBLE PRECISION NOT NULL,
    "significance" "Significance" NOT NULL,
    "memory_category" "MemoryCategory" NOT NULL,
    "stage" "ExtractionStage" NOT NULL,
    "model" TEXT,
    "event_time" TIMESTAMPTZ(3),
    "scope" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "trace_id" TEXT NOT NULL,
    "recorded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retracted_at" TIMESTAMPTZ(3),

    CONSTRAINT "assertions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "attributes" (
    "id" UUID NOT NULL,
    "context_id" UUID NOT NULL,
    "entity_id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "memory_category" "MemoryCategory" NOT NULL,
    "confidence" DOUBLE PRECISION NOT NULL,
    "assertion_id" UUID NOT NULL,
    "scope" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "valid_from" TIMESTAMPTZ(3) NOT NULL,
    "valid_to" TIMESTAMPTZ(3),
    "superseded_by" UUID,
    "recorded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retracted_at" TIMESTAMPTZ(3),

    CONSTRAINT "attributes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "relations" (
    "id" UUID NOT NULL,
    "context_id" UUID NOT NULL,
    "subject_id" UUID NOT NULL,
    "predicate" TEXT NOT NULL,
    "object_id" UUID NOT NULL,
    "memory_category" "MemoryCategory" NOT NULL,
    "confidence" DOUBLE PRECISION NOT NULL,
    "assertion_id" UUID NOT NULL,
    "scope" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "valid_from" TIMESTAMPTZ(3) NOT NULL,
    "valid_to" TIMESTAMPTZ(3),
    "superseded_by" UUID,
    "recorded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retracted_at" TIMESTAMPTZ(3),

    CONSTRAINT "relations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "instructions" (
    "id" UUID NOT NULL,
    "context_id" UUID NOT NULL,
    "candidate_id" UUID,
    "label" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "scope" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "active" BOOLEAN NOT NULL DEFAULT true,
    "turn_id" UUID,
    "document_id" UUID,
    "quote" TEXT,
    "start_byte" INTEGER,
    "end_byte" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),
    "revoked_by" UUID,

    CONSTRAINT "instructions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "uncertainties" (
    "id" UUID NOT NULL,
    "context_id" UUID NOT NULL,
    "candidate_id" UUID,
    "about" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "entity_id" UUID,
    "key" TEXT,
    "scope" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "turn_id" UUID,
    "document_id" UUID,
    "resolved" BOOLEAN NOT NULL DEFAULT false,
    "resolved_at" TIMESTAMPTZ(3),
    "resolved_by" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "uncertainties_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "outbox_events" (
    "id" UUID NOT NULL,
    "context_id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "work_item_id" UUID NOT NULL,
    "payload" JSONB NOT NULL,
    "trace_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "processed_at" TIMESTAMPTZ(3),

    CONSTRAINT "outbox_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "retractions" (
    "id" UUID NOT NULL,
    "context_id" UUID NOT NULL,
    "source_type" TEXT NOT NULL,
    "source_id" UUID NOT NULL,
    "reason" TEXT NOT NULL,
    "summary" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "retractions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_prefix_key" ON "api_keys"("prefix");

-- CreateIndex
CREATE INDEX "api_keys_context_id_idx" ON "api_keys"("context_id");

-- CreateIndex
CREATE UNIQUE INDEX "sources_context_id_type_external_id_key" ON "sources"("context_id", "type", "external_id");

-- CreateIndex
CREATE INDEX "documents_context_id_created_at_idx" ON "documents"("context_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "document_nodes_document_id_ordinal_key" ON "document_nodes"("document_id", "ordinal");

-- CreateIndex
CREATE INDEX "sessions_context_id_created_at_idx" ON "sessions"("context_id", "created_at");

-- CreateIndex
CREATE INDEX "turns_context_id_created_at_idx" ON "turns"("context_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "turns_session_id_seq_key" ON "turns"("session_id", "seq");

-- CreateIndex
CREATE INDEX "work_items_context_id_status_idx" ON "work_items"("context_id", "status");

-- CreateIndex
CREATE INDEX "work_items_subject_id_idx" ON "work_items"("subject_id");

-- CreateIndex
CREATE UNIQUE INDEX "work_items_queue_subject_type_subject_id_key" ON "work_items"("queue", "subject_type", "subject_id");

-- CreateIndex
CREATE UNIQUE INDEX "work_attempts_work_item_id_attempt_key" ON "work_attempts"("work_item_id", "attempt");

-- CreateIndex
CREATE UNIQUE INDEX "extraction_plans_subject_type_subject_id_key" ON "extraction_plans"("subject_type", "subject_id");

-- CreateIndex
CREATE INDEX "knowledge_candidates_subject_type_subject_id_idx" ON "knowledge_candidates"("subject_type", "subject_id");

-- CreateIndex
CREATE UNIQUE INDEX "knowledge_candidates_work_item_id_ordinal_key" ON "knowledge_candidates"("work_item_id", "ordinal");

-- CreateIndex
CREATE INDEX "entities_context_id_identity_key_idx" ON "entities"("context_id", "identity_key");

-- CreateIndex
CREATE UNIQUE INDEX "assertions_candidate_id_key" ON "assertions"("candidate_id");

-- CreateIndex
CREATE INDEX "assertions_context_id_subject_entity_id_idx" ON "assertions"("context_id", "subject_entity_id");

-- CreateIndex
CREATE INDEX "assertions_turn_id_idx" ON "assertions"("turn_id");

-- CreateIndex
CREATE INDEX "assertions_document_id_idx" ON "assertions"("document_id");

-- CreateIndex
CREATE UNIQUE INDEX "attributes_assertion_id_key" ON "attributes"("assertion_id");

-- CreateIndex
CREATE INDEX "attributes_context_id_entity_id_key_idx" ON "attributes"("context_id", "entity_id", "key");

-- CreateIndex
CREATE UNIQUE INDEX "relations_assertion_id_key" ON "relations"("assertion_id");

-- CreateIndex
CREATE INDEX "relations_context_id_subject_id_predicate_idx" ON "relations"("context_id", "subject_id", "predicate");

-- CreateIndex
CREATE UNIQUE INDEX "instructions_candidate_id_key" ON "instructions"("candidate_id");

-- CreateIndex
CREATE INDEX "instructions_context_id_active_idx" ON "instructions"("context_id", "active");

-- CreateIndex
CREATE UNIQUE INDEX "uncertainties_candidate_id_key" ON "uncertainties"("candidate_id");

-- CreateIndex
CREATE INDEX "uncertainties_context_id_resolved_idx" ON "uncertainties"("context_id", "resolved");

-- CreateIndex
CREATE UNIQUE INDEX "outbox_events_work_item_id_key" ON "outbox_events"("work_item_id");

-- CreateIndex
CREATE INDEX "outbox_events_processed_at_created_at_idx" ON "outbox_events"("processed_at", "created_at");

-- CreateIndex
CREATE INDEX "retractions_context_id_source_id_idx" ON "retractions"("context_id", "source_id");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_context_id_fkey" FOREIGN KEY ("context_id") REFERENCES "contexts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sources" ADD CONSTRAINT "sources_context_id_fkey" FOREIGN KEY ("context_id") REFERENCES "contexts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "documents" ADD CONSTRAINT "documents_context_id_fkey" FOREIGN KEY ("context_id") REFERENCES "contexts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "documents" ADD CONSTRAINT "documents_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "document_nodes" ADD CONSTRAINT "document_nodes_document_id_fkey" FOREIGN KEY ("document_id") REFERENCES "documents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_context_id_fkey" FOREIGN KEY ("context_id") REFERENCES "contexts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "turns" ADD CONSTRAINT "turns_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "work_attempts" ADD CONSTRAINT "work_attempts_work_item_id_fkey" FOREIGN KEY ("work_item_id") REFERENCES "work_items"("id") ON DELETE CASCADE ON UPDATE CASCADE;

