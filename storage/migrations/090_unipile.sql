-- A hosted LinkedIn API (Unipile) tells the service what happened through webhooks and a
-- periodic reconciliation instead of a report sequence the engine polls. What it says lands
-- here, in the engine's tables, before the provider is answered.

-- Every webhook received and authenticated, as it came, once: the same webhook delivered twice
-- has the same dedupe_key (from the event's own ids) and is stored the first time only. The
-- reports it makes enter provider_reports in the same transaction.
CREATE TABLE provider_webhooks (
    id           bigserial PRIMARY KEY,
    provider     text NOT NULL,
    dedupe_key   text NOT NULL,
    kind         text NOT NULL,
    body         bytea NOT NULL,
    received_at  timestamptz NOT NULL,
    UNIQUE (provider, dedupe_key)
);
CREATE INDEX provider_webhooks_received ON provider_webhooks (received_at);

-- A report's own identity (the message's id, the member who accepted): a webhook and the
-- reconciliation that finds the same fact give the same key, and it is recorded once.
ALTER TABLE provider_reports ADD COLUMN dedupe_key text;
CREATE UNIQUE INDEX provider_reports_dedupe ON provider_reports (provider, dedupe_key) WHERE dedupe_key IS NOT NULL;

-- Member ids and the public handles of their profiles, as the provider taught them (profile
-- look-ups, accepted invitations, relations): what turns a member id a webhook names into the
-- lead key a prospect was pushed with, and a handle into the member id an invitation needs
-- without viewing the profile again. public_identifier is folded as lead keys fold handles.
CREATE TABLE linkedin_members (
    member_id          text PRIMARY KEY,
    public_identifier  text NOT NULL,
    updated_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX linkedin_members_handle ON linkedin_members (public_identifier);

-- Hosted sign-in links outreachd made for a seat-to-be. The token travels in the link's name
-- and comes back in the provider's call-back; only its SHA-256 is kept. A link is used once
-- (used_at), before expires_at, and connects the account as the named seat of org_id.
CREATE TABLE seat_links (
    token_hash           bytea PRIMARY KEY,
    provider             text NOT NULL,
    org_id               text NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    name                 text NOT NULL,
    expires_at           timestamptz NOT NULL,
    used_at              timestamptz,
    provider_account_id  text,
    created_at           timestamptz NOT NULL DEFAULT now()
);

-- Where the periodic reconciliation of each seat stands: facts after since are not yet
-- reconciled; status is the account status the last run saw; pending the member ids of the
-- invitations pending then. A lease (wall clock) keeps one instance on one seat at a time, and
-- synced_at keeps the instances together from syncing a seat more often than the interval.
CREATE TABLE seat_syncs (
    provider             text NOT NULL,
    provider_account_id  text NOT NULL,
    since                timestamptz NOT NULL,
    status               text NOT NULL DEFAULT '',
    pending              text[] NOT NULL DEFAULT '{}',
    synced_at            timestamptz,
    lease_until          timestamptz NOT NULL DEFAULT '-infinity',
    lease_owner          text,
    PRIMARY KEY (provider, provider_account_id)
);
