-- Completion is pushed, not polled. Postgres delivers a NOTIFY when the raising transaction
-- commits, so a listener (the API waiting on a turn, the outbox relay) hears only of durable work.

-- A turn is answered once truth maintenance applied it (its work item's payload gets
-- truth_maintained_at, or the item succeeds) or once any of its stages is dead.
CREATE FUNCTION recall_notify_turn_progress() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.subject_type = 'turn'
     AND ((NEW.status = 'dead' AND OLD.status IS DISTINCT FROM 'dead')
          OR (NEW.queue = 'truth_maintenance'
              AND (NEW.status IS DISTINCT FROM OLD.status OR NEW.payload IS DISTINCT FROM OLD.payload))) THEN
    PERFORM pg_notify('recall_turn_progress', NEW.subject_id::text);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER work_items_notify_turn_progress
  AFTER UPDATE ON work_items
  FOR EACH ROW EXECUTE FUNCTION recall_notify_turn_progress();

-- The outbox relay drains as soon as any process commits outbox rows.
CREATE FUNCTION recall_notify_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('recall_outbox', '');
  RETURN NULL;
END $$;

CREATE TRIGGER outbox_events_notify
  AFTER INSERT ON outbox_events
  FOR EACH STATEMENT EXECUTE FUNCTION recall_notify_outbox();
