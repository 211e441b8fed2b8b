-- Lead intake (issue 2): the enrichment queue's retry bookkeeping. A lead whose enrichment
-- failed with a transient error waits until enrichment_next_at before it is claimed again, so a
-- provider outage does not turn the 250 ms poll into a hot loop; after a few attempts the lead
-- is resolved without enrichment (enrichment_status 'failed').
ALTER TABLE prospects
    ADD COLUMN enrichment_attempts integer NOT NULL DEFAULT 0,
    ADD COLUMN enrichment_next_at  timestamptz;

-- The enrichment worker's queue: pushed leads not yet enriched, oldest first.
CREATE INDEX prospects_enrichment_queue ON prospects (created_at)
    WHERE enrichment_status = 'pending' AND pushed;
