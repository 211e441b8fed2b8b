-- An event's payload is stored once, not once per destination. deliveries carried a copy of the
-- event body in every row, so an event for ten destinations wrote its body ten times, and every
-- attempt record (a non-HOT update of the delivery) wrote it again, and those copies were a
-- large part of the WAL (measured: docs/performance.md, "Design choices and their
-- measurements"). A delivery now finds its body by event id.
CREATE TABLE delivery_payloads (
    event_id    text PRIMARY KEY,
    payload     bytea NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
INSERT INTO delivery_payloads (event_id, payload)
SELECT DISTINCT ON (event_id) event_id, payload FROM deliveries ORDER BY event_id, created_at;
ALTER TABLE deliveries DROP COLUMN payload;
