-- A destination's filter and its throttle.
--
-- filter narrows the events of the kinds the destination selects (outreach/filter.go is the
-- language): the text as the client gave it, compacted, NULL for none. json, not jsonb, so a read
-- shows it as given, its members in their order. The fan-out compiles it once per version of the
-- row (updated_at) and keeps it.
ALTER TABLE destinations ADD COLUMN filter json;

-- rate_limit_per_second caps the attempts towards the destination that start in any one-second
-- window, counted across every process; NULL for none.
ALTER TABLE destinations ADD COLUMN rate_limit_per_second integer
    CHECK (rate_limit_per_second BETWEEN 1 AND 1000);

-- The throttle's budget, one row per destination that has (or had) a rate limit, written in the
-- transaction that sets the limit: the start times of attempts are handed out as slots spaced
-- evenly, and next_start is the first slot nobody holds yet. A claim locks the row, takes the
-- slots it needs from max(next_start, now) on and moves next_start past them (granted: how
-- many, read back by the statement that took them). A separate table, so the budget's updates
-- never lock the destination's own row, which every fan-out reads and the recorder updates.
CREATE TABLE destination_throttles (
    destination_id text PRIMARY KEY REFERENCES destinations(id) ON DELETE CASCADE,
    next_start     timestamptz NOT NULL DEFAULT now(),
    granted        integer NOT NULL DEFAULT 0
);

-- throttled_ms: set when the destination's rate limit held the attempt back, from the time it was
-- due to the time it started; NULL when nothing held it. The attempt log filters on it.
ALTER TABLE delivery_attempts ADD COLUMN throttled_ms integer;
CREATE INDEX delivery_attempts_dest_throttled_at ON delivery_attempts (destination_id, at DESC)
    WHERE throttled_ms IS NOT NULL;
