-- Secret rotation with an overlap (issue 12): when a destination's secret is replaced, the old
-- one (still sealed) keeps signing beside the new one until previous_secret_expires_at, so
-- receivers can switch without failing deliveries. Readers ignore an expired previous secret;
-- the janitor clears it.
ALTER TABLE destinations
    ADD COLUMN previous_secret_sealed text,
    ADD COLUMN previous_secret_expires_at timestamptz;
