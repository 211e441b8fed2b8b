-- The duplicate rule keeps one row per payload instead of one per delivery: a payload key (the
-- SHA-256 of the event's identity: kind, organization, data) and the destinations that got it,
-- each with the end of its own window. The rule is unchanged: an identical payload to the same
-- destination within the window collapses; a destination that did not get it (or whose window
-- ended) gets it.
--
-- A 10-destination fan-out wrote ten dedupe rows per event, each a speculative insert with two
-- index entries, the largest part of a fan-out after the deliveries themselves (EXPLAIN
-- ANALYZE). Now it writes one. Measured: docs/performance.md, "The fan-out statement".
--
-- The keys written before this migration were per destination (SHA-256 of destination and
-- identity) and cannot be turned into payload keys; they stay in delivery_dedupe_legacy, which
-- the fan-out also consults while it holds any (storage.Store.legacyDedupe), until retention has
-- removed them all, a window after the upgrade. Nothing writes to it any more.
ALTER TABLE delivery_dedupe RENAME TO delivery_dedupe_legacy;
ALTER INDEX delivery_dedupe_pkey RENAME TO delivery_dedupe_legacy_pkey;
ALTER INDEX delivery_dedupe_expires RENAME TO delivery_dedupe_legacy_expires;

CREATE TABLE delivery_dedupe (
    payload_key     bytea PRIMARY KEY,
    -- the destinations that got the payload, and until when each collapses it (parallel)
    destination_ids text[] NOT NULL,
    expires_at      timestamptz[] NOT NULL,
    -- the destinations the row's last write added: the fan-out's RETURNING, which decides who
    -- gets a delivery
    added           text[] NOT NULL,
    -- the latest of expires_at, for retention
    last_expires_at timestamptz NOT NULL
);
CREATE INDEX delivery_dedupe_last_expires ON delivery_dedupe (last_expires_at);

-- The row after a payload already seen comes again for the destinations want (until: the end of
-- their window): the entries still inside their window are kept, in order; the destinations of
-- want none of them covers are added (sorted) and reported in added.
CREATE FUNCTION delivery_dedupe_merge(ids text[], ends timestamptz[], want text[], until timestamptz,
    OUT destination_ids text[], OUT expires_at timestamptz[], OUT added text[], OUT last_expires_at timestamptz)
LANGUAGE sql STABLE AS $$
    WITH live AS (
        SELECT o.id, o.ends, o.n FROM unnest(ids, ends) WITH ORDINALITY AS o(id, ends, n) WHERE o.ends > now()
    ), new AS (
        SELECT w AS id FROM unnest(want) AS w WHERE w NOT IN (SELECT id FROM live)
    )
    SELECT (SELECT coalesce(array_agg(id ORDER BY n), '{}') FROM live) || (SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM new),
           (SELECT coalesce(array_agg(ends ORDER BY n), '{}') FROM live) || array_fill(until, ARRAY[(SELECT count(*)::int FROM new)]),
           (SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM new),
           coalesce(greatest((SELECT max(ends) FROM live), CASE WHEN EXISTS (SELECT 1 FROM new) THEN until END), until)
$$;
