-- The Event Destinations page draws each destination's last 24 hours as delivered/failed per
-- hour. Counting the attempts themselves reads every attempt of the day (100,000 rows for ten
-- busy destinations: ~300 ms); this rollup holds one row per destination and hour instead, kept
-- exact by a statement-level trigger on delivery_attempts, so the recorder's batched INSERT
-- feeds it with one aggregated upsert per batch. Test sends are left out: they say nothing
-- about the events a destination received.

CREATE TABLE delivery_health_hourly (
    destination_id  text NOT NULL REFERENCES destinations(id) ON DELETE CASCADE,
    hour            timestamptz NOT NULL,
    delivered       integer NOT NULL DEFAULT 0,
    failed          integer NOT NULL DEFAULT 0,
    PRIMARY KEY (destination_id, hour)
);

CREATE FUNCTION delivery_health_hourly_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO delivery_health_hourly AS h (destination_id, hour, delivered, failed)
    SELECT n.destination_id, date_trunc('hour', n.at),
        count(*) FILTER (WHERE n.error IS NULL AND n.status_code BETWEEN 200 AND 299),
        count(*) FILTER (WHERE NOT (n.error IS NULL AND n.status_code BETWEEN 200 AND 299))
    FROM new_rows n
    WHERE n.trigger <> 'test'
    GROUP BY 1, 2
    ORDER BY 1, 2
    ON CONFLICT (destination_id, hour) DO UPDATE SET
        delivered = h.delivered + excluded.delivered,
        failed = h.failed + excluded.failed;
    RETURN NULL;
END
$$;

CREATE TRIGGER delivery_health_hourly_insert AFTER INSERT ON delivery_attempts
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION delivery_health_hourly_add();

-- The last two days of attempts written before this migration (the page shows one).
INSERT INTO delivery_health_hourly (destination_id, hour, delivered, failed)
SELECT destination_id, date_trunc('hour', at),
    count(*) FILTER (WHERE error IS NULL AND status_code BETWEEN 200 AND 299),
    count(*) FILTER (WHERE NOT (error IS NULL AND status_code BETWEEN 200 AND 299))
FROM delivery_attempts
WHERE trigger <> 'test' AND at >= now() - interval '48 hours'
GROUP BY 1, 2;
