-- CreateTable
CREATE TABLE "webhooks" (
    "id" UUID NOT NULL,
    "context_id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "events" TEXT[],
    "description" TEXT,
    "secret" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "failing_since" TIMESTAMPTZ(3),
    "disabled_at" TIMESTAMPTZ(3),

    CONSTRAINT "webhooks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_events" (
    "id" UUID NOT NULL,
    "context_id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "dedupe_key" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" UUID NOT NULL,
    "webhook_id" UUID NOT NULL,
    "event_id" UUID NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "give_up_at" TIMESTAMPTZ(3),
    "last_status_code" INTEGER,
    "last_error" TEXT,
    "last_response" TEXT,
    "last_attempt_at" TIMESTAMPTZ(3),
    "delivered_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "webhooks_context_id_idx" ON "webhooks"("context_id");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_events_dedupe_key_key" ON "webhook_events"("dedupe_key");

-- CreateIndex
CREATE INDEX "webhook_events_context_id_created_at_idx" ON "webhook_events"("context_id", "created_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_status_next_attempt_at_idx" ON "webhook_deliveries"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_webhook_id_created_at_idx" ON "webhook_deliveries"("webhook_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_webhook_id_event_id_key" ON "webhook_deliveries"("webhook_id", "event_id");

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_webhook_id_fkey" FOREIGN KEY ("webhook_id") REFERENCES "webhooks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "webhook_events"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Webhook events are written by triggers, in the transaction that produces them, so no path (a worker's
-- stage, a window's stage, a direct write, an operator's retry) can commit an event's cause without its
-- deliveries. Hand-written: Prisma cannot express triggers. Nothing is written when no live webhook of the
-- context subscribes to the type (one index lookup on webhooks).
CREATE FUNCTION recall_webhook_emit(ctx uuid, event_type text, data jsonb, dedupe text DEFAULT NULL)
RETURNS uuid LANGUAGE plpgsql AS $$
DECLARE
  new_event uuid;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM webhooks WHERE context_id = ctx AND disabled_at IS NULL AND event_type = ANY (events)) THEN
    RETURN NULL;
  END IF;
  INSERT INTO webhook_events (id, context_id, type, data, dedupe_key)
  VALUES (gen_random_uuid(), ctx, event_type, data, dedupe)
  ON CONFLICT (dedupe_key) DO NOTHING
  RETURNING id INTO new_event;
  IF new_event IS NULL THEN
    RETURN NULL;
  END IF;
  INSERT INTO webhook_deliveries (id, webhook_id, event_id)
  SELECT gen_random_uuid(), w.id, new_event FROM webhooks w
  WHERE w.context_id = ctx AND w.disabled_at IS NULL AND event_type = ANY (w.events);
  PERFORM pg_notify('recall_webhooks', '');
  RETURN new_event;
END $$;

-- batch.done: once every turn of the batch is committed (truth maintained), dead or cancelled. The batch
-- row is locked first, so two transactions finishing its last turns side by side cannot both miss it (the
-- second reads after the first commits); the dedupe key keeps it to one event. The check for a turn still in
-- flight scans from the batch's end, where they usually are (windows commit in order), so it stops early; the
-- counts are read once, when none is left.
CREATE FUNCTION recall_webhook_batch_done(ctx uuid, done_turn uuid) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  t record;
  b record;
  counts record;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM webhooks WHERE context_id = ctx AND disabled_at IS NULL AND 'batch.done' = ANY (events)) THEN
    RETURN;
  END IF;
  SELECT session_id, seq INTO t FROM turns WHERE id = done_turn;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  SELECT id, session_id, first_seq, last_seq INTO b FROM turn_batches
  WHERE session_id = t.session_id AND t.seq BETWEEN first_seq AND last_seq FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  IF EXISTS (
    SELECT 1 FROM turns tu
    WHERE tu.session_id = b.session_id AND tu.seq BETWEEN b.first_seq AND b.last_seq
      AND NOT EXISTS (
        SELECT 1 FROM work_items w WHERE w.subject_id = tu.id AND w.subject_type = 'turn'
          AND (w.status IN ('dead', 'cancelled') OR (w.queue = 'truth_maintenance' AND w.payload ? 'truth_maintained_at')))
    ORDER BY tu.seq DESC LIMIT 1
  ) THEN
    RETURN;
  END IF;
  SELECT count(*) FILTER (WHERE s.state = 'committed') AS committed, count(*) FILTER (WHERE s.state = 'failed') AS failed,
         count(*) FILTER (WHERE s.state = 'cancelled') AS cancelled, count(*) AS turns
  INTO counts
  FROM (
    -- As the batch status route reads a turn (views/turn-result.ts turnState): truth maintained first.
    SELECT (SELECT CASE WHEN bool_or(w.queue = 'truth_maintenance' AND w.payload ? 'truth_maintained_at') THEN 'committed'
                        WHEN bool_or(w.status = 'dead') THEN 'failed' WHEN bool_or(w.status = 'cancelled') THEN 'cancelled' END
            FROM work_items w WHERE w.subject_id = tu.id AND w.subject_type = 'turn') AS state
    FROM turns tu WHERE tu.session_id = b.session_id AND tu.seq BETWEEN b.first_seq AND b.last_seq
  ) s;
  PERFORM recall_webhook_emit(ctx, 'batch.done',
    jsonb_build_object('batch_id', b.id, 'session_id', b.session_id, 'turns', counts.turns, 'committed', counts.committed,
                       'failed', counts.failed, 'cancelled', counts.cancelled),
    'batch.done:' || b.id::text);
END $$;

-- turn.committed / document.committed when truth maintenance applied the input (its item gets, or is
-- created with, a new truth_maintained_at: what the API calls committed); turn.failed / document.failed
-- and work_item.dead when any of its stages goes dead; batch.done checked when a turn reaches an end.
CREATE FUNCTION recall_webhook_work_item() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  was_status "WorkStatus" := CASE WHEN TG_OP = 'UPDATE' THEN OLD.status END;
  was_maintained text := CASE WHEN TG_OP = 'UPDATE' THEN OLD.payload ->> 'truth_maintained_at' END;
  committed boolean := NEW.queue = 'truth_maintenance' AND NEW.subject_type IN ('turn', 'document')
    AND NEW.payload ? 'truth_maintained_at' AND NEW.payload ->> 'truth_maintained_at' IS DISTINCT FROM was_maintained;
  dead boolean := NEW.status = 'dead' AND was_status IS DISTINCT FROM 'dead';
  cancelled boolean := NEW.status = 'cancelled' AND was_status IS DISTINCT FROM 'cancelled';
  turn_session uuid;
BEGIN
  IF NOT (committed OR dead OR cancelled) THEN
    RETURN NULL;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM webhooks WHERE context_id = NEW.context_id AND disabled_at IS NULL) THEN
    RETURN NULL;
  END IF;
  IF NEW.subject_type = 'turn' THEN
    SELECT session_id INTO turn_session FROM turns WHERE id = NEW.subject_id;
  END IF;
  IF committed THEN
    PERFORM recall_webhook_emit(NEW.context_id, NEW.subject_type || '.committed',
      jsonb_strip_nulls(jsonb_build_object(NEW.subject_type || '_id', NEW.subject_id, 'session_id', turn_session,
        'work_item_id', NEW.id, 'trace_id', NEW.trace_id)));
  END IF;
  IF dead THEN
    PERFORM recall_webhook_emit(NEW.context_id, 'work_item.dead',
      jsonb_build_object('work_item_id', NEW.id, 'queue', NEW.queue, 'subject_type', NEW.subject_type,
        'subject_id', NEW.subject_id, 'error_class', NEW.error_class, 'attempts', NEW.attempts, 'trace_id', NEW.trace_id));
    IF NEW.subject_type IN ('turn', 'document') THEN
      PERFORM recall_webhook_emit(NEW.context_id, NEW.subject_type || '.failed',
        jsonb_strip_nulls(jsonb_build_object(NEW.subject_type || '_id', NEW.subject_id, 'session_id', turn_session,
          'work_item_id', NEW.id, 'queue', NEW.queue, 'error_class', NEW.error_class, 'trace_id', NEW.trace_id)));
    END IF;
  END IF;
  IF NEW.subject_type = 'turn' THEN
    PERFORM recall_webhook_batch_done(NEW.context_id, NEW.subject_id);
  END IF;
  RETURN NULL;
END $$;

-- The WHEN clause keeps the function out of every other transition (claims, attempts, checkpoints).
CREATE TRIGGER work_items_webhooks
  AFTER INSERT OR UPDATE ON work_items
  FOR EACH ROW WHEN (NEW.status IN ('dead', 'cancelled') OR (NEW.queue = 'truth_maintenance' AND NEW.payload ? 'truth_maintained_at'))
  EXECUTE FUNCTION recall_webhook_work_item();

-- fact.superseded: every step that closes a fact (supersession.ts writes one row per step).
CREATE FUNCTION recall_webhook_supersession() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM recall_webhook_emit(NEW.context_id, 'fact.superseded',
    jsonb_build_object('supersession_id', NEW.id, 'fact_kind', NEW.fact_kind, 'fact_id', NEW.older_id,
      'superseded_by', NEW.newer_id, 'valid_to', NEW.valid_to));
  RETURN NULL;
END $$;

CREATE TRIGGER supersessions_webhooks
  AFTER INSERT ON supersessions
  FOR EACH ROW EXECUTE FUNCTION recall_webhook_supersession();

-- instruction.revoked: an instruction deactivated by a revocation (revocation.ts sets revoked_at).
CREATE FUNCTION recall_webhook_instruction() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM recall_webhook_emit(NEW.context_id, 'instruction.revoked',
    jsonb_strip_nulls(jsonb_build_object('instruction_id', NEW.id, 'revoked_by_turn_id', NEW.revoked_by)));
  RETURN NULL;
END $$;

CREATE TRIGGER instructions_webhooks
  AFTER UPDATE OF revoked_at ON instructions
  FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
  EXECUTE FUNCTION recall_webhook_instruction();
