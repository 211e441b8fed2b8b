-- Core of the v1 API: organizations, keys, the shared rate-limit windows, campaigns,
-- prospects (a pushed lead is a prospect of its campaign, same id), the do-not-contact list,
-- intake tokens, conversions and the activity log that analytics counts.

CREATE TABLE orgs (
    id                     text PRIMARY KEY,
    name                   text NOT NULL,
    rate_limit_per_minute  integer CHECK (rate_limit_per_minute > 0),
    default_filters        jsonb NOT NULL DEFAULT '{}',
    created_at             timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
    id          text PRIMARY KEY,
    org_id      text NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    key_hash    bytea NOT NULL UNIQUE,
    scope       text NOT NULL CHECK (scope IN ('read', 'read_write')),
    expires_at  timestamptz,
    revoked_at  timestamptz,
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- One row per organization, budget and minute. UNLOGGED: losing the counters of the current
-- minute in a crash is acceptable; writing them to the WAL on every request is not worth it.
CREATE UNLOGGED TABLE rate_windows (
    org_id        text NOT NULL,
    bucket        text NOT NULL,
    window_start  timestamptz NOT NULL,
    used          integer NOT NULL,
    PRIMARY KEY (org_id, bucket, window_start)
);

CREATE TABLE campaigns (
    id             text PRIMARY KEY,
    org_id         text NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    name           text NOT NULL,
    status         text NOT NULL DEFAULT 'draft'
                   CHECK (status IN ('draft', 'active', 'paused', 'completed', 'archived')),
    outreach_type  text NOT NULL DEFAULT 'outbound' CHECK (outreach_type IN ('outbound', 'inbound')),
    source_type    text,
    source_config  jsonb,
    daily_limit    integer NOT NULL DEFAULT 20,
    schedule       jsonb NOT NULL,
    sequence       jsonb NOT NULL DEFAULT '[]',
    hard_filters   jsonb NOT NULL DEFAULT '{}',
    ai_settings    jsonb NOT NULL DEFAULT '{}',
    account_ids    text[] NOT NULL DEFAULT '{}',
    started_at     timestamptz,
    completed_at   timestamptz,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX campaigns_org_created ON campaigns (org_id, created_at DESC, id DESC);

CREATE TABLE intake_tokens (
    token_hash   bytea PRIMARY KEY,
    campaign_id  text NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
    org_id       text NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    created_at   timestamptz NOT NULL DEFAULT now(),
    revoked_at   timestamptz
);
CREATE UNIQUE INDEX intake_tokens_one_live ON intake_tokens (campaign_id) WHERE revoked_at IS NULL;

CREATE TABLE prospects (
    id                    text PRIMARY KEY,
    org_id                text NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    campaign_id           text NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
    lead_key              text NOT NULL,
    linkedin_id           text NOT NULL,
    name                  text NOT NULL DEFAULT '',
    status                text NOT NULL DEFAULT 'pending',
    current_step          integer NOT NULL DEFAULT 0,
    source                text NOT NULL,
    pushed                boolean NOT NULL DEFAULT false,
    batch_id              text,
    enrichment_status     text NOT NULL DEFAULT 'pending',
    filter_verdict        text NOT NULL DEFAULT 'pending'
                          CHECK (filter_verdict IN ('pending', 'accepted', 'rejected')),
    filter_reason         text,
    filter_unknown_only   boolean NOT NULL DEFAULT false,
    contacted             boolean NOT NULL DEFAULT false,
    email                 text,
    data                  jsonb NOT NULL DEFAULT '{}',
    linkedin_url          text,
    public_identifier     text,
    role                  text,
    company               text,
    industry              text,
    location              text,
    headline              text,
    company_website       text,
    company_linkedin_url  text,
    company_size          text,
    follower_count        integer,
    outcome_interested_at timestamptz,
    outcome_lost_at       timestamptz,
    booked_at             timestamptz,
    converted_at          timestamptz,
    sequence_ended_at     timestamptz,
    last_activity_at      timestamptz,
    created_at            timestamptz NOT NULL DEFAULT now(),
    updated_at            timestamptz NOT NULL DEFAULT now(),
    UNIQUE (campaign_id, lead_key)
);
CREATE INDEX prospects_org_created ON prospects (org_id, created_at DESC, id DESC);
CREATE INDEX prospects_campaign_created ON prospects (campaign_id, created_at DESC, id DESC);
CREATE INDEX prospects_org_key ON prospects (org_id, lead_key);
CREATE INDEX prospects_batch ON prospects (campaign_id, batch_id);
CREATE INDEX prospects_enrichment_due ON prospects (created_at) WHERE enrichment_status = 'pending';

-- The organization's do-not-contact list. key is the normalized form that matching uses
-- (a profile's lead key, url:<company slug> or name:<normalized company name>).
CREATE TABLE blacklist (
    org_id      text NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    type        text NOT NULL CHECK (type IN ('account', 'company')),
    key         text NOT NULL,
    value       text NOT NULL,
    reason      text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, type, key)
);
CREATE INDEX blacklist_org_created ON blacklist (org_id, created_at DESC);

CREATE TABLE conversions (
    id              text PRIMARY KEY,
    org_id          text NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    event_type      text NOT NULL,
    linkedin_id     text,
    prospect_name   text,
    prospect_email  text,
    meta            jsonb,
    dedupe_key      bytea NOT NULL,
    prospect_id     text,
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX conversions_dedupe ON conversions (org_id, dedupe_key, created_at DESC);

-- What happened, one row per countable fact; analytics sums it per UTC day.
CREATE TABLE activities (
    id           bigserial PRIMARY KEY,
    org_id       text NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    campaign_id  text,
    prospect_id  text,
    account_id   text,
    kind         text NOT NULL,
    sentiment    text,
    manual       boolean NOT NULL DEFAULT false,
    at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX activities_org_at ON activities (org_id, at);
