-- A destination's attempt log on the Event Destinations page filters by event kind and by
-- outcome, newest first, 50 at a time. Without these indexes a rare filter (the failures of one
-- kind, say) reads every attempt of the destination to fill a page. The failure indexes are
-- partial: only failed attempts are written to them.
CREATE INDEX delivery_attempts_dest_kind_at ON delivery_attempts (destination_id, event_kind, at DESC);
CREATE INDEX delivery_attempts_dest_failed_at ON delivery_attempts (destination_id, at DESC)
    WHERE NOT (error IS NULL AND status_code BETWEEN 200 AND 299);
CREATE INDEX delivery_attempts_dest_kind_failed_at ON delivery_attempts (destination_id, event_kind, at DESC)
    WHERE NOT (error IS NULL AND status_code BETWEEN 200 AND 299);
