-- Row-level security's cost down to one comparison per statement (docs/security.md, docs/performance.md).
-- The first policies read `context_id = <the connection's context> OR <a bypass setting>` on every row: Postgres cannot
-- fold that OR into anything, so each row read or written paid two setting look-ups, a uuid cast and the OR (about
-- 1 µs a row). Here each table gets two policies, chosen by role as Postgres applies them:
--   recall_tenant (every role): `context_id = recall_context_id()`. With no OR, the planner puts it in the same
--     equivalence class as a query's own `context_id = $1` and checks it once per statement (a One-Time Filter);
--   recall_bypass (role recall_bypass only): every row. The audited cross-context paths (packages/db/src/tenancy.ts)
--     switch to that role instead of setting recall.bypass; for it the two policies OR to true, which Postgres folds.
-- recall_bypass is, like recall_service, NOLOGIN NOSUPERUSER NOBYPASSRLS, with the same grants.

DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'recall_bypass') THEN
    CREATE ROLE recall_bypass NOLOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE;
  END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
  NULL; -- created meanwhile by a migration of another database
END $$;

DO $$
BEGIN
  IF NOT pg_has_role(current_user, 'recall_bypass', 'MEMBER') THEN
    EXECUTE format('GRANT recall_bypass TO %I', current_user);
  END IF;
END $$;

DO $$
BEGIN
  EXECUTE format('GRANT USAGE ON SCHEMA %I TO recall_bypass', current_schema());
  EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON ALL TABLES IN SCHEMA %I TO recall_bypass', current_schema());
  EXECUTE format('GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA %I TO recall_bypass', current_schema());
  EXECUTE format('GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA %I TO recall_bypass', current_schema());
  EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON TABLES TO recall_bypass', current_schema());
  EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO recall_bypass', current_schema());
  EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT EXECUTE ON FUNCTIONS TO recall_bypass', current_schema());
END $$;

-- The connection's context; NULL (matching no row) when unset or empty. Inlined into each policy.
CREATE FUNCTION recall_context_id() RETURNS uuid LANGUAGE sql STABLE AS $$
  SELECT nullif(current_setting('recall.context_id', true), '')::uuid
$$;
GRANT EXECUTE ON FUNCTION recall_context_id() TO recall_service, recall_bypass;

DROP POLICY recall_tenant ON "contexts";
CREATE POLICY recall_tenant ON "contexts" USING (id = recall_context_id()) WITH CHECK (id = recall_context_id());
CREATE POLICY recall_bypass ON "contexts" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "api_keys";
CREATE POLICY recall_tenant ON "api_keys" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "api_keys" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "sources";
CREATE POLICY recall_tenant ON "sources" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "sources" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "documents";
CREATE POLICY recall_tenant ON "documents" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "documents" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "sessions";
CREATE POLICY recall_tenant ON "sessions" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "sessions" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "turns";
CREATE POLICY recall_tenant ON "turns" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "turns" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "fact_writes";
CREATE POLICY recall_tenant ON "fact_writes" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "fact_writes" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "work_items";
CREATE POLICY recall_tenant ON "work_items" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "work_items" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "model_calls";
CREATE POLICY recall_tenant ON "model_calls" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "model_calls" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "extraction_plans";
CREATE POLICY recall_tenant ON "extraction_plans" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "extraction_plans" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "knowledge_candidates";
CREATE POLICY recall_tenant ON "knowledge_candidates" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "knowledge_candidates" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "reviews";
CREATE POLICY recall_tenant ON "reviews" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "reviews" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "review_commits";
CREATE POLICY recall_tenant ON "review_commits" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "review_commits" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "entities";
CREATE POLICY recall_tenant ON "entities" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "entities" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "entity_mentions";
CREATE POLICY recall_tenant ON "entity_mentions" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "entity_mentions" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "assertions";
CREATE POLICY recall_tenant ON "assertions" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "assertions" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "attributes";
CREATE POLICY recall_tenant ON "attributes" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "attributes" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "relations";
CREATE POLICY recall_tenant ON "relations" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "relations" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "instructions";
CREATE POLICY recall_tenant ON "instructions" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "instructions" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "uncertainties";
CREATE POLICY recall_tenant ON "uncertainties" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "uncertainties" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "supersessions";
CREATE POLICY recall_tenant ON "supersessions" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "supersessions" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "outbox_events";
CREATE POLICY recall_tenant ON "outbox_events" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "outbox_events" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "retractions";
CREATE POLICY recall_tenant ON "retractions" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "retractions" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "embeddings";
CREATE POLICY recall_tenant ON "embeddings" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "embeddings" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "search_term_stats";
CREATE POLICY recall_tenant ON "search_term_stats" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "search_term_stats" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "search_doc_stats";
CREATE POLICY recall_tenant ON "search_doc_stats" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "search_doc_stats" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "turn_batches";
CREATE POLICY recall_tenant ON "turn_batches" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "turn_batches" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "extraction_windows";
CREATE POLICY recall_tenant ON "extraction_windows" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "extraction_windows" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "webhooks";
CREATE POLICY recall_tenant ON "webhooks" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "webhooks" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "webhook_events";
CREATE POLICY recall_tenant ON "webhook_events" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "webhook_events" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "erasures";
CREATE POLICY recall_tenant ON "erasures" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "erasures" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "erased_inputs";
CREATE POLICY recall_tenant ON "erased_inputs" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "erased_inputs" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "context_imports";
CREATE POLICY recall_tenant ON "context_imports" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "context_imports" TO recall_bypass USING (true) WITH CHECK (true);

-- Tables without a context_id column answer through their parent row, which its own policy limits.
DROP POLICY recall_tenant ON "document_nodes";
CREATE POLICY recall_tenant ON "document_nodes"
  USING (EXISTS (SELECT 1 FROM documents d WHERE d.id = document_id))
  WITH CHECK (EXISTS (SELECT 1 FROM documents d WHERE d.id = document_id));
CREATE POLICY recall_bypass ON "document_nodes" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "work_attempts";
CREATE POLICY recall_tenant ON "work_attempts"
  USING (EXISTS (SELECT 1 FROM work_items w WHERE w.id = work_item_id))
  WITH CHECK (EXISTS (SELECT 1 FROM work_items w WHERE w.id = work_item_id));
CREATE POLICY recall_bypass ON "work_attempts" TO recall_bypass USING (true) WITH CHECK (true);

DROP POLICY recall_tenant ON "webhook_deliveries";
CREATE POLICY recall_tenant ON "webhook_deliveries"
  USING (EXISTS (SELECT 1 FROM webhooks w WHERE w.id = webhook_id))
  WITH CHECK (EXISTS (SELECT 1 FROM webhooks w WHERE w.id = webhook_id));
CREATE POLICY recall_bypass ON "webhook_deliveries" TO recall_bypass USING (true) WITH CHECK (true);

-- An idempotency key's scope is "context:<id>" of its path, or "admin" (admin routes run in a bypass).
DROP POLICY recall_tenant ON "idempotency_keys";
CREATE POLICY recall_tenant ON "idempotency_keys"
  USING (scope = 'context:' || current_setting('recall.context_id', true))
  WITH CHECK (scope = 'context:' || current_setting('recall.context_id', true));
CREATE POLICY recall_bypass ON "idempotency_keys" TO recall_bypass USING (true) WITH CHECK (true);

DROP FUNCTION recall_visible(uuid);
DROP FUNCTION recall_bypass();
