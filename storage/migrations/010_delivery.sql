-- The event-delivery hub: destinations per organization, one delivery row per (event,
-- destination), and every attempt made.

CREATE TABLE destinations (
    id                    text PRIMARY KEY,
    org_id                text NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    name                  text NOT NULL,
    kind                  text NOT NULL CHECK (kind IN ('https', 'slack')),
    -- https: the endpoint; slack: the incoming-webhook URL, or '' when a bot token + channel is used
    url                   text NOT NULL DEFAULT '',
    slack_channel         text,
    slack_token_sealed    text,
    -- selected event kinds; '{all}' means every kind
    events                text[] NOT NULL DEFAULT '{all}',
    secret_sealed         text,
    enabled               boolean NOT NULL DEFAULT true,
    consecutive_failures  integer NOT NULL DEFAULT 0,
    created_at            timestamptz NOT NULL DEFAULT now(),
    updated_at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX destinations_org ON destinations (org_id, created_at);

-- status: pending (waiting for next_attempt_at), succeeded, failed (attempts exhausted or gone)
CREATE TABLE deliveries (
    id               text PRIMARY KEY,
    org_id           text NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    destination_id   text NOT NULL REFERENCES destinations(id) ON DELETE CASCADE,
    event_id         text NOT NULL,
    event_kind       text NOT NULL,
    payload          bytea NOT NULL,
    -- sha256 of the payload's identity for "identical payloads collapse" (24 h window)
    dedupe_key       bytea NOT NULL,
    status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempts         integer NOT NULL DEFAULT 0,
    max_attempts     integer NOT NULL DEFAULT 4,
    next_attempt_at  timestamptz,
    emitted_at       timestamptz NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    delivered_at     timestamptz,
    last_status_code integer,
    last_error       text
);
CREATE UNIQUE INDEX deliveries_event_dest ON deliveries (event_id, destination_id);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_dest_created ON deliveries (destination_id, created_at DESC);
CREATE INDEX deliveries_org_created ON deliveries (org_id, created_at DESC);

-- Dedupe window: one row per (destination, payload identity) while it is remembered.
CREATE TABLE delivery_dedupe (
    destination_id  text NOT NULL REFERENCES destinations(id) ON DELETE CASCADE,
    dedupe_key      bytea NOT NULL,
    delivery_id     text NOT NULL,
    expires_at      timestamptz NOT NULL,
    PRIMARY KEY (destination_id, dedupe_key)
);
CREATE INDEX delivery_dedupe_expires ON delivery_dedupe (expires_at);

CREATE TABLE delivery_attempts (
    id                bigserial PRIMARY KEY,
    delivery_id       text REFERENCES deliveries(id) ON DELETE CASCADE,
    destination_id    text NOT NULL REFERENCES destinations(id) ON DELETE CASCADE,
    org_id            text NOT NULL,
    event_id          text NOT NULL,
    event_kind        text NOT NULL,
    attempt           integer NOT NULL,
    trigger           text NOT NULL CHECK (trigger IN ('scheduled', 'manual', 'test')),
    at                timestamptz NOT NULL,
    url               text NOT NULL,
    status_code       integer NOT NULL,
    error             text,
    duration_ms       integer NOT NULL,
    response_excerpt  text,
    next_attempt_at   timestamptz
);
CREATE INDEX delivery_attempts_dest_at ON delivery_attempts (destination_id, at DESC);
CREATE INDEX delivery_attempts_delivery ON delivery_attempts (delivery_id, attempt);
