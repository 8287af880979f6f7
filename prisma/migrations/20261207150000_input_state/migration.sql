-- Issue 46: an input's state has one definition, @recall/pipeline's input-state.ts. Committed means truth
-- maintenance applied it (MAINTAINED_ITEM_SQL, which recall_input_committed holds verbatim; input-state.test.ts
-- checks that and drives every transition against these triggers). What the same item does afterwards (embedding)
-- no longer makes a committed input fail: turn.failed / document.failed are raised only for an input not
-- committed; work_item.dead still reports every dead item.
CREATE FUNCTION recall_input_committed(input_type text, input_id uuid) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM work_items w WHERE w.subject_type = input_type AND w.subject_id = input_id
    AND w.queue = 'truth_maintenance' AND w.payload ? 'truth_maintained_at')
$$;

CREATE OR REPLACE FUNCTION recall_webhook_batch_done(ctx uuid, done_turn uuid) RETURNS void LANGUAGE plpgsql AS $$
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
          AND w.status IN ('dead', 'cancelled'))
      AND NOT recall_input_committed('turn', tu.id)
    ORDER BY tu.seq DESC LIMIT 1
  ) THEN
    RETURN;
  END IF;
  SELECT count(*) FILTER (WHERE s.state = 'committed') AS committed, count(*) FILTER (WHERE s.state = 'awaiting_model') AS awaiting_model,
         count(*) FILTER (WHERE s.state = 'failed') AS failed,
         count(*) FILTER (WHERE s.state = 'cancelled') AS cancelled, count(*) AS turns
  INTO counts
  FROM (
    -- As the batch status route reads a turn (@recall/pipeline inputState): truth maintained first.
    SELECT (SELECT CASE WHEN recall_input_committed('turn', tu.id)
                          THEN CASE WHEN bool_or(w.status = 'awaiting_model') THEN 'awaiting_model' ELSE 'committed' END
                        WHEN bool_or(w.status = 'dead') THEN 'failed' WHEN bool_or(w.status = 'cancelled') THEN 'cancelled' END
            FROM work_items w WHERE w.subject_id = tu.id AND w.subject_type = 'turn') AS state
    FROM turns tu WHERE tu.session_id = b.session_id AND tu.seq BETWEEN b.first_seq AND b.last_seq
  ) s;
  PERFORM recall_webhook_emit(ctx, 'batch.done',
    jsonb_build_object('batch_id', b.id, 'session_id', b.session_id, 'turns', counts.turns, 'committed', counts.committed,
                       'awaiting_model', counts.awaiting_model, 'failed', counts.failed, 'cancelled', counts.cancelled),
    'batch.done:' || b.id::text);
END $$;

CREATE OR REPLACE FUNCTION recall_webhook_work_item() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  was_status "WorkStatus" := CASE WHEN TG_OP = 'UPDATE' THEN OLD.status END;
  was_maintained text := CASE WHEN TG_OP = 'UPDATE' THEN OLD.payload ->> 'truth_maintained_at' END;
  committed boolean := NEW.queue = 'truth_maintenance' AND NEW.subject_type IN ('turn', 'document')
    AND NEW.payload ? 'truth_maintained_at' AND NEW.payload ->> 'truth_maintained_at' IS DISTINCT FROM was_maintained;
  dead boolean := NEW.status = 'dead' AND was_status IS DISTINCT FROM 'dead';
  cancelled boolean := NEW.status = 'cancelled' AND was_status IS DISTINCT FROM 'cancelled';
  turn_session uuid;
  committed_state text;
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
    -- committed, or awaiting_model when the rules committed their part and the rest waits for a model.
    committed_state := CASE WHEN EXISTS (SELECT 1 FROM work_items a WHERE a.subject_type = NEW.subject_type
      AND a.subject_id = NEW.subject_id AND a.status = 'awaiting_model') THEN 'awaiting_model' ELSE 'committed' END;
    PERFORM recall_webhook_emit(NEW.context_id, NEW.subject_type || '.committed',
      jsonb_strip_nulls(jsonb_build_object(NEW.subject_type || '_id', NEW.subject_id, 'session_id', turn_session,
        'work_item_id', NEW.id, 'trace_id', NEW.trace_id, 'state', committed_state)));
  END IF;
  IF dead THEN
    PERFORM recall_webhook_emit(NEW.context_id, 'work_item.dead',
      jsonb_build_object('work_item_id', NEW.id, 'queue', NEW.queue, 'subject_type', NEW.subject_type,
        'subject_id', NEW.subject_id, 'error_class', NEW.error_class, 'attempts', NEW.attempts, 'trace_id', NEW.trace_id));
    -- Failed only when not committed: a truth-maintenance item that dies embedding what it applied leaves the
    -- input committed (inputState), and tells operators through work_item.dead alone.
    IF NEW.subject_type IN ('turn', 'document') AND NOT recall_input_committed(NEW.subject_type, NEW.subject_id) THEN
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
