-- Notifications only for what someone waits on, so a stage's own bookkeeping wakes nobody (each
-- wake-up costs the waiter a read). Hand-written: Prisma cannot express triggers.

-- A waiting turn request is answered once truth maintenance applied the turn (its item succeeds, or
-- its payload gets truth_maintained_at), or once any of its stages is dead or cancelled. Claiming the
-- truth_maintenance item (queued -> running) no longer notifies; a truth_maintenance item created
-- done (a commit that left it nothing to maintain) notifies as it is inserted.
CREATE OR REPLACE FUNCTION recall_notify_turn_progress() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  was_status "WorkStatus" := CASE WHEN TG_OP = 'UPDATE' THEN OLD.status END;
  was_maintained boolean := TG_OP = 'UPDATE' AND OLD.payload ? 'truth_maintained_at';
BEGIN
  IF NEW.subject_type = 'turn'
     AND ((NEW.status IN ('dead', 'cancelled') AND was_status IS DISTINCT FROM NEW.status)
          OR (NEW.queue = 'truth_maintenance'
              AND ((NEW.status = 'succeeded' AND was_status IS DISTINCT FROM 'succeeded')
                   OR (NEW.payload ? 'truth_maintained_at' AND NOT was_maintained)))) THEN
    PERFORM pg_notify('recall_turn_progress', NEW.subject_id::text);
  END IF;
  RETURN NULL;
END $$;

DROP TRIGGER work_items_notify_turn_progress ON work_items;
CREATE TRIGGER work_items_notify_turn_progress
  AFTER INSERT OR UPDATE ON work_items
  FOR EACH ROW EXECUTE FUNCTION recall_notify_turn_progress();

-- The outbox relay wakes only for rows it must move: a commit that created its truth_maintenance
-- work item itself writes its row as relayed already.
CREATE OR REPLACE FUNCTION recall_notify_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM inserted WHERE processed_at IS NULL) THEN
    PERFORM pg_notify('recall_outbox', '');
  END IF;
  RETURN NULL;
END $$;

DROP TRIGGER outbox_events_notify ON outbox_events;
CREATE TRIGGER outbox_events_notify
  AFTER INSERT ON outbox_events
  REFERENCING NEW TABLE AS inserted
  FOR EACH STATEMENT EXECUTE FUNCTION recall_notify_outbox();
