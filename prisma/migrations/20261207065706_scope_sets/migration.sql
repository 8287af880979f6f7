-- Scopes stored once (issue 42, case 4). Every row used to carry its own copy of its scope: a turn, each entity,
-- mention, assertion, attribute, relation, instruction, uncertainty and embedding written from it, about five copies
-- a turn, so a scope of 32 entries of 256 characters cost 4.4 bytes of storage for each byte sent. Now a context's
-- distinct scopes live once in scope_sets, and a row names its set by id (`scope_set_id`, NULL when unscoped).
-- The rule is unchanged: a row is visible to a reader when its set's entries are all the reader's
-- (packages/memory/src/core/scope.ts); read/sql-fragments.ts writes it as "unscoped, or a set contained in the reader's".

-- CreateTable
CREATE TABLE "scope_sets" (
    "id" BIGSERIAL NOT NULL,
    "context_id" UUID NOT NULL,
    "entries" TEXT[],
    "digest" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "scope_sets_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "scope_sets_context_id_digest_key" ON "scope_sets"("context_id", "digest");

-- AddForeignKey
ALTER TABLE "scope_sets" ADD CONSTRAINT "scope_sets_context_id_fkey" FOREIGN KEY ("context_id") REFERENCES "contexts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The same row-level security as every table of a context's rows (20261206030000_policies_by_role).
ALTER TABLE "scope_sets" ENABLE ROW LEVEL SECURITY;
ALTER TABLE "scope_sets" FORCE ROW LEVEL SECURITY;
CREATE POLICY recall_tenant ON "scope_sets" USING (context_id = recall_context_id()) WITH CHECK (context_id = recall_context_id());
CREATE POLICY recall_bypass ON "scope_sets" TO recall_bypass USING (true) WITH CHECK (true);

-- The set of `entries` in context `ctx`: found, or added. Entries are trimmed, empty ones dropped, duplicates removed
-- and sorted bytewise, so two writers naming the same pairs in any order share one set; no entries is NULL (unscoped).
-- Two transactions adding the same new set meet on the unique index: the second waits, does nothing, then reads the
-- first's row (each statement of READ COMMITTED takes a new snapshot).
CREATE FUNCTION recall_scope_set(ctx uuid, entries text[]) RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  sorted text[];
  d bytea;
  found bigint;
BEGIN
  sorted := ARRAY(SELECT e FROM (SELECT DISTINCT btrim(x) AS e FROM unnest(entries) x) s WHERE e <> '' ORDER BY e COLLATE "C");
  IF cardinality(sorted) = 0 THEN
    RETURN NULL;
  END IF;
  d := sha256(convert_to(sorted::text, 'UTF8'));
  SELECT id INTO found FROM scope_sets WHERE context_id = ctx AND digest = d;
  IF found IS NOT NULL THEN
    RETURN found;
  END IF;
  INSERT INTO scope_sets (context_id, entries, digest) VALUES (ctx, sorted, d)
    ON CONFLICT (context_id, digest) DO NOTHING RETURNING id INTO found;
  IF found IS NULL THEN
    SELECT id INTO found FROM scope_sets WHERE context_id = ctx AND digest = d;
  END IF;
  RETURN found;
END $$;

-- A set's entries; none for NULL (unscoped).
CREATE FUNCTION recall_scope(set_id bigint) RETURNS text[] LANGUAGE sql STABLE AS $$
  SELECT coalesce((SELECT entries FROM scope_sets WHERE id = set_id), '{}'::text[])
$$;

ALTER TABLE "assertions" ADD COLUMN "scope_set_id" BIGINT;
ALTER TABLE "attributes" ADD COLUMN "scope_set_id" BIGINT;
ALTER TABLE "embeddings" ADD COLUMN "scope_set_id" BIGINT;
ALTER TABLE "entities" ADD COLUMN "scope_set_id" BIGINT;
ALTER TABLE "entity_mentions" ADD COLUMN "scope_set_id" BIGINT;
ALTER TABLE "fact_writes" ADD COLUMN "scope_set_id" BIGINT;
ALTER TABLE "instructions" ADD COLUMN "scope_set_id" BIGINT;
ALTER TABLE "relations" ADD COLUMN "scope_set_id" BIGINT;
ALTER TABLE "turns" ADD COLUMN "scope_set_id" BIGINT;
ALTER TABLE "uncertainties" ADD COLUMN "scope_set_id" BIGINT;

-- Existing rows move to their sets. Row-level security holds the tables' owner too (FORCE), so the copy runs as
-- recall_bypass, the role of the audited cross-context paths, which this user was granted.
SET ROLE recall_bypass;
UPDATE "assertions" SET scope_set_id = recall_scope_set(context_id, scope) WHERE cardinality(scope) > 0;
UPDATE "attributes" SET scope_set_id = recall_scope_set(context_id, scope) WHERE cardinality(scope) > 0;
UPDATE "embeddings" SET scope_set_id = recall_scope_set(context_id, scope) WHERE cardinality(scope) > 0;
UPDATE "entities" SET scope_set_id = recall_scope_set(context_id, scope) WHERE cardinality(scope) > 0;
UPDATE "entity_mentions" SET scope_set_id = recall_scope_set(context_id, scope) WHERE cardinality(scope) > 0;
UPDATE "fact_writes" SET scope_set_id = recall_scope_set(context_id, scope) WHERE cardinality(scope) > 0;
UPDATE "instructions" SET scope_set_id = recall_scope_set(context_id, scope) WHERE cardinality(scope) > 0;
UPDATE "relations" SET scope_set_id = recall_scope_set(context_id, scope) WHERE cardinality(scope) > 0;
UPDATE "turns" SET scope_set_id = recall_scope_set(context_id, scope) WHERE cardinality(scope) > 0;
UPDATE "uncertainties" SET scope_set_id = recall_scope_set(context_id, scope) WHERE cardinality(scope) > 0;
RESET ROLE;

ALTER TABLE "assertions" DROP COLUMN "scope";
ALTER TABLE "attributes" DROP COLUMN "scope";
ALTER TABLE "embeddings" DROP COLUMN "scope";
ALTER TABLE "entities" DROP COLUMN "scope";
ALTER TABLE "entity_mentions" DROP COLUMN "scope";
ALTER TABLE "fact_writes" DROP COLUMN "scope";
ALTER TABLE "instructions" DROP COLUMN "scope";
ALTER TABLE "relations" DROP COLUMN "scope";
ALTER TABLE "turns" DROP COLUMN "scope";
ALTER TABLE "uncertainties" DROP COLUMN "scope";
