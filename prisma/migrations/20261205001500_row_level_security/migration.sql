-- Row-level security: every table that holds a context's rows answers only to the context named by the
-- connection's `recall.context_id` setting, or to everyone when `recall.bypass` is 'on' (the audited paths
-- of packages/db/src/tenancy.ts). The service works as recall_service, a role that RLS holds (no superuser,
-- no BYPASSRLS); the pool switches to it on every connection (packages/db/src/index.ts). Migrations still run
-- as the connecting user, which owns the tables. docs/security.md says what this guarantees.

-- Roles are cluster-wide: several databases of one server share it, so create it only when missing.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'recall_service') THEN
    CREATE ROLE recall_service NOLOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE;
  END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
  NULL; -- created meanwhile by a migration of another database
END $$;

DO $$
BEGIN
  IF NOT pg_has_role(current_user, 'recall_service', 'MEMBER') THEN
    EXECUTE format('GRANT recall_service TO %I', current_user);
  END IF;
END $$;

DO $$
BEGIN
  EXECUTE format('GRANT USAGE ON SCHEMA %I TO recall_service', current_schema());
  EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON ALL TABLES IN SCHEMA %I TO recall_service', current_schema());
  EXECUTE format('GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA %I TO recall_service', current_schema());
  EXECUTE format('GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA %I TO recall_service', current_schema());
  EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON TABLES TO recall_service', current_schema());
  EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO recall_service', current_schema());
  EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT EXECUTE ON FUNCTIONS TO recall_service', current_schema());
END $$;

-- Under row-level security Postgres uses a query's own condition as an index condition only when its function is
-- LEAKPROOF. Two that the indexes here need are not marked so: `tsvector @@ tsquery` (full-text search would scan a
-- context's rows instead of its GIN index) and enum equality (work_items (status, created_at), which the sweepers
-- read). Neither raises an error or has a side effect that depends on a row, so both are marked leakproof, which
-- only a superuser may do; another owner gets a notice (everything still works, without those index paths).
DO $$
BEGIN
  IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    ALTER FUNCTION pg_catalog.ts_match_vq(tsvector, tsquery) LEAKPROOF;
    ALTER FUNCTION pg_catalog.enum_eq(anyenum, anyenum) LEAKPROOF;
    ALTER FUNCTION pg_catalog.enum_ne(anyenum, anyenum) LEAKPROOF;
  ELSE
    RAISE NOTICE 'not a superuser: ask one to mark pg_catalog.ts_match_vq(tsvector, tsquery), enum_eq(anyenum, anyenum) and enum_ne(anyenum, anyenum) LEAKPROOF, so full-text search and the sweepers keep their indexes under row-level security';
  END IF;
END $$;

-- True in an audited bypass (recall.bypass = 'on').
CREATE FUNCTION recall_bypass() RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT coalesce(current_setting('recall.bypass', true), '') = 'on'
$$;

-- True for the rows of the connection's context, or every row in a bypass. An unset or empty setting matches
-- no row. Written as one comparison on the uuid column so a query's own context_id index still serves it.
CREATE FUNCTION recall_visible(ctx uuid) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT ctx = nullif(current_setting('recall.context_id', true), '')::uuid OR recall_bypass()
$$;

ALTER TABLE "contexts" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "contexts" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "contexts" USING (recall_visible(id)) WITH CHECK (recall_visible(id));

ALTER TABLE "api_keys" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "api_keys" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "api_keys" USING (recall_visible(context_id)) WITH CHECK (recall_visible(context_id));

ALTER TABLE "sources" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "sources" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "sources" USING (recall_visible(context_id)) WITH CHECK (recall_visible(context_id));

ALTER TABLE "documents" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "documents" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "documents" USING (recall_visible(context_id)) WITH CHECK (recall_visible(context_id));

ALTER TABLE "sessions" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "sessions" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "sessions" USING (recall_visible(context_id)) WITH CHECK (recall_visible(context_id));

ALTER TABLE "turns" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "turns" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "turns" USING (recall_visible(context_id)) WITH CHECK (recall_visible(context_id));

ALTER TABLE "fact_writes" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "fact_writes" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "fact_writes" USING (recall_visible(context_id)) WITH CHECK (recall_visible(context_id));

ALTER TABLE "work_items" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "work_items" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "work_items" USING (recall_visible(context_id)) WITH CHECK (recall_visible(context_id));

ALTER TABLE "model_calls" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "model_calls" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "model_calls" USING (recall_visible(context_id)) WITH CHECK (recall_visible(context_id));

ALTER TABLE "extraction_plans" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "extraction_plans" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "extraction_plans" USING (recall_visible(context_id)) WITH CHECK (recall_visible(context_id));

ALTER TABLE "knowledge_candidates" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "knowledge_candidates" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "knowledge_candidates" USING (recall_visible(context_id)) WITH CHECK (recall_visible(context_id));

ALTER TABLE "reviews" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "reviews" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "reviews" USING (recall_visible(context_id)) WITH CHECK (recall_visible(context_id));

ALTER TABLE "review_commits" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "review_commits" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "review_commits" USING (recall_visible(context_id)) WITH CHECK (recall_visible(context_id));

ALTER TABLE "entities" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "entities" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "entities" USING (recall_visible(context_id)) WITH CHECK (recall_visible(context_id));

ALTER TABLE "entity_mentions" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "entity_mentions" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "entity_mentions" USING (recall_visible(context_id)) WITH CHECK (recall_visible(context_id));

ALTER TABLE "assertions" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "assertions" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "assertions" USING (recall_visible(context_id)) WITH CHECK (recall_visible(context_id));

ALTER TABLE "attributes" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "attributes" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "attributes" USING (recall_visible(context_id)) WITH CHECK (recall_visible(context_id));

ALTER TABLE "relations" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "relations" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "relations" USING (recall_visible(context_id)) WITH CHECK (recall_visible(context_id));

ALTER TABLE "instructions" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "instructions" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "instructions" USING (recall_visible(context_id)) WITH CHECK (recall_visible(context_id));

ALTER TABLE "uncertainties" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "uncertainties" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "uncertainties" USING (recall_visible(context_id)) WITH CHECK (recall_visible(context_id));

ALTER TABLE "supersessions" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "supersessions" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "supersessions" USING (recall_visible(context_id)) WITH CHECK (recall_visible(context_id));

ALTER TABLE "outbox_events" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "outbox_events" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "outbox_events" USING (recall_visible(context_id)) WITH CHECK (recall_visible(context_id));

ALTER TABLE "retractions" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "retractions" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "retractions" USING (recall_visible(context_id)) WITH CHECK (recall_visible(context_id));

ALTER TABLE "embeddings" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "embeddings" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "embeddings" USING (recall_visible(context_id)) WITH CHECK (recall_visible(context_id));

ALTER TABLE "search_term_stats" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "search_term_stats" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "search_term_stats" USING (recall_visible(context_id)) WITH CHECK (recall_visible(context_id));

ALTER TABLE "search_doc_stats" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "search_doc_stats" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "search_doc_stats" USING (recall_visible(context_id)) WITH CHECK (recall_visible(context_id));

ALTER TABLE "turn_batches" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "turn_batches" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "turn_batches" USING (recall_visible(context_id)) WITH CHECK (recall_visible(context_id));

ALTER TABLE "extraction_windows" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "extraction_windows" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "extraction_windows" USING (recall_visible(context_id)) WITH CHECK (recall_visible(context_id));

ALTER TABLE "webhooks" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "webhooks" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "webhooks" USING (recall_visible(context_id)) WITH CHECK (recall_visible(context_id));

ALTER TABLE "webhook_events" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "webhook_events" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "webhook_events" USING (recall_visible(context_id)) WITH CHECK (recall_visible(context_id));

ALTER TABLE "erasures" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "erasures" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "erasures" USING (recall_visible(context_id)) WITH CHECK (recall_visible(context_id));

ALTER TABLE "erased_inputs" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "erased_inputs" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "erased_inputs" USING (recall_visible(context_id)) WITH CHECK (recall_visible(context_id));

ALTER TABLE "context_imports" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "context_imports" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "context_imports" USING (recall_visible(context_id)) WITH CHECK (recall_visible(context_id));

-- Tables without a context_id column answer through their parent row, which its own policy already limits
-- (an EXISTS on the parent's primary key: one index probe per row; document nodes are read per document).
ALTER TABLE "document_nodes" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "document_nodes" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "document_nodes"
  USING (recall_bypass() OR EXISTS (SELECT 1 FROM documents d WHERE d.id = document_id))
  WITH CHECK (recall_bypass() OR EXISTS (SELECT 1 FROM documents d WHERE d.id = document_id));

ALTER TABLE "work_attempts" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "work_attempts" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "work_attempts"
  USING (recall_bypass() OR EXISTS (SELECT 1 FROM work_items w WHERE w.id = work_item_id))
  WITH CHECK (recall_bypass() OR EXISTS (SELECT 1 FROM work_items w WHERE w.id = work_item_id));

ALTER TABLE "webhook_deliveries" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "webhook_deliveries" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "webhook_deliveries"
  USING (recall_bypass() OR EXISTS (SELECT 1 FROM webhooks w WHERE w.id = webhook_id))
  WITH CHECK (recall_bypass() OR EXISTS (SELECT 1 FROM webhooks w WHERE w.id = webhook_id));

-- An idempotency key's scope is "context:<id>" of its path, or "admin" (admin routes run in a bypass).
ALTER TABLE "idempotency_keys" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "idempotency_keys" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "idempotency_keys"
  USING (recall_bypass() OR scope = 'context:' || current_setting('recall.context_id', true))
  WITH CHECK (recall_bypass() OR scope = 'context:' || current_setting('recall.context_id', true));
