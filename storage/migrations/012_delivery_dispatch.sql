-- Delivery hub, dispatch side: wake-ups by LISTEN/NOTIFY instead of polling sleeps, the trigger of
-- a delivery's next attempt (scheduled or manual), and indexes for the two claim budgets.

-- The outbox table, exactly as watermill-sql's DefaultPostgreSQLSchema creates it for the topic
-- "events" (storage.initOutbox runs the same CREATE TABLE IF NOT EXISTS after migrations, which is
-- then a no-op). It is created here so the wake-up trigger below can be attached to it.
CREATE TABLE IF NOT EXISTS "watermill_events" (
    "offset" BIGSERIAL,
    "uuid" VARCHAR(36) NOT NULL,
    "created_at" TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "payload" JSON DEFAULT NULL,
    "metadata" JSON DEFAULT NULL,
    "transaction_id" xid8 NOT NULL,
    PRIMARY KEY ("transaction_id", "offset")
);

-- Every transaction that writes events wakes the fan-out at commit (notifications of one
-- transaction on one channel collapse into one).
CREATE FUNCTION outreachd_notify_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('outbox', '');
    RETURN NULL;
END $$;
CREATE TRIGGER watermill_events_notify AFTER INSERT ON "watermill_events"
    FOR EACH STATEMENT EXECUTE FUNCTION outreachd_notify_outbox();

-- 'manual' when the next attempt was asked for by an operator (resend, recover).
ALTER TABLE deliveries ADD COLUMN next_trigger text NOT NULL DEFAULT 'scheduled'
    CHECK (next_trigger IN ('scheduled', 'manual'));

-- First attempts and retries are claimed from separate budgets, each through its own index.
CREATE INDEX deliveries_due_first ON deliveries (next_attempt_at) WHERE status = 'pending' AND attempts = 0;
CREATE INDEX deliveries_due_retry ON deliveries (next_attempt_at) WHERE status = 'pending' AND attempts > 0;
CREATE INDEX deliveries_failed_org ON deliveries (org_id, created_at) WHERE status = 'failed';
