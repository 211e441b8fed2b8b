-- The outbox moves from watermill-sql's default PostgreSQL schema to its queue schema.
--
-- The default schema hands a consumer only the rows whose writing transaction is older than the
-- oldest transaction still running anywhere in the cluster (pg_snapshot_xmin), so that it never
-- skips a row committed late with a smaller offset. The price is that every event waited for the
-- longest write transaction running when it committed: an enrichment batch, a push of 100 leads,
-- the recorder's batch. At 200 single-lead pushes a second that put 20 ms on the median delivery
-- and 150–250 ms on the p99 (docs/performance.md). The queue schema selects unacknowledged rows
-- instead: a row is taken as soon as its transaction commits, whatever else is running, and
-- acknowledging marks the row (acked) rather than moving a watermark. The fan-out selects with
-- FOR UPDATE SKIP LOCKED (storage.OutboxSchema), so several instances take disjoint batches.
--
-- Acknowledged rows are kept for an hour for operators and tests (storage.OutboxEvents), then
-- pruned in bounded batches (storage.PruneOutbox). The partial index holds only the rows still
-- to do, so the fan-out's select never walks the acknowledged ones.
CREATE TABLE outreachd_outbox (
    "offset"    bigserial PRIMARY KEY,
    uuid        varchar(36) NOT NULL,
    payload     json DEFAULT NULL,
    metadata    json DEFAULT NULL,
    acked       boolean NOT NULL DEFAULT false,
    created_at  timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX outreachd_outbox_todo ON outreachd_outbox ("offset") WHERE NOT acked;

-- Events the old fan-out had not yet processed move over, in their order. Without an offsets row
-- (the hub never ran on this database) every event is still to do.
-- (EXECUTE: the old tables may not exist, and PL/pgSQL plans a static statement before running it.)
DO $$
DECLARE
    have_offsets boolean := false;
BEGIN
    IF to_regclass('watermill_events') IS NULL THEN
        RETURN;
    END IF;
    IF to_regclass('watermill_offsets_events') IS NOT NULL THEN
        EXECUTE $q$SELECT EXISTS (SELECT 1 FROM watermill_offsets_events WHERE consumer_group = 'fanout')$q$
            INTO have_offsets;
    END IF;
    IF have_offsets THEN
        EXECUTE $q$
            INSERT INTO outreachd_outbox (uuid, payload, metadata, created_at)
            SELECT e.uuid, e.payload, e.metadata, e.created_at
            FROM watermill_events e, watermill_offsets_events o
            WHERE o.consumer_group = 'fanout'
              AND (e.transaction_id, e."offset") > (o.last_processed_transaction_id, o.offset_acked)
            ORDER BY e.transaction_id, e."offset"$q$;
    ELSE
        EXECUTE $q$
            INSERT INTO outreachd_outbox (uuid, payload, metadata, created_at)
            SELECT uuid, payload, metadata, created_at FROM watermill_events
            ORDER BY transaction_id, "offset"$q$;
    END IF;
END $$;
DROP TABLE IF EXISTS watermill_events;
DROP TABLE IF EXISTS watermill_offsets_events;
