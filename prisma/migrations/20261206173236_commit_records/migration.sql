-- CreateTable
CREATE TABLE "commit_records" (
    "commit_id" UUID NOT NULL,
    "context_id" UUID NOT NULL,
    "subject_type" TEXT NOT NULL,
    "subject_id" UUID NOT NULL,
    "retracted" BOOLEAN NOT NULL DEFAULT false,
    "refs" JSONB NOT NULL,
    "committed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "commit_records_pkey" PRIMARY KEY ("commit_id")
);

-- CreateIndex
CREATE INDEX "commit_records_context_id_subject_id_idx" ON "commit_records"("context_id", "subject_id");


-- Tenant isolation as every table's (20261206030000_policies_by_role).
ALTER TABLE "commit_records" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "commit_records" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "commit_records" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "commit_records" TO recall_bypass USING (true) WITH CHECK (true);
-- Granted as the earlier tables were, whichever role runs the migration (default privileges are per owner).
GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON "commit_records" TO recall_service, recall_bypass;

-- Until now a commit's outbox row was its record: every commit made so far gets one.
INSERT INTO "commit_records" (commit_id, context_id, subject_type, subject_id, retracted, refs, committed_at)
SELECT o.work_item_id, o.context_id, o.payload->>'subjectType', (o.payload->>'subjectId')::uuid,
       coalesce((o.payload->>'retracted')::boolean, false), o.payload, o.created_at
FROM "outbox_events" o
WHERE o.type = 'artifacts_committed'
ON CONFLICT (commit_id) DO NOTHING;
