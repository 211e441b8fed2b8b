-- The outreach engine: LinkedIn seats, where each prospect stands in its sequence, chats and
-- messages, reply drafts, the needs-human queue, stalls, scheduled follow-ups and digests.

CREATE TABLE linkedin_accounts (
    id                   text PRIMARY KEY,
    org_id               text NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    name                 text NOT NULL,
    provider_account_id  text NOT NULL,
    status               text NOT NULL DEFAULT 'connected'
                         CHECK (status IN ('connected', 'disconnected', 'rate_limited')),
    cooldown_until       timestamptz,
    disconnected_at      timestamptz,
    sn_verdict           text,
    sn_changed_at        timestamptz,
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now(),
    UNIQUE (provider_account_id)
);
CREATE INDEX linkedin_accounts_org ON linkedin_accounts (org_id, created_at);

ALTER TABLE prospects
    ADD COLUMN account_id      text,
    ADD COLUMN chat_id         text,
    -- when the engine should next look at this prospect; NULL = nothing scheduled
    ADD COLUMN next_step_at    timestamptz,
    ADD COLUMN invited_at      timestamptz,
    ADD COLUMN connected_at    timestamptz,
    ADD COLUMN replied_at      timestamptz,
    ADD COLUMN sentiment       text,
    -- POST /inbox/stop: sequence paused with its position kept (current_step, next_step_at)
    ADD COLUMN paused_at       timestamptz,
    ADD COLUMN paused_next_step_at timestamptz;
CREATE INDEX prospects_next_step ON prospects (next_step_at) WHERE next_step_at IS NOT NULL;
CREATE INDEX prospects_org_activity ON prospects (org_id, last_activity_at) WHERE sentiment = 'positive';

CREATE TABLE chats (
    id                     text PRIMARY KEY,
    org_id                 text NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    account_id             text NOT NULL REFERENCES linkedin_accounts(id) ON DELETE CASCADE,
    provider_chat_id       text NOT NULL,
    lead_key               text,
    prospect_id            text,
    attendee_name          text NOT NULL DEFAULT '',
    attendee_provider_id   text NOT NULL DEFAULT '',
    unread_count           integer NOT NULL DEFAULT 0,
    last_message_text      text,
    last_message_at        timestamptz,
    last_message_from_me   boolean,
    -- POST /inbox/stop or /inbox/block: no more drafted replies in this chat
    replies_stopped_at     timestamptz,
    created_at             timestamptz NOT NULL DEFAULT now(),
    UNIQUE (account_id, provider_chat_id)
);
CREATE INDEX chats_org_key ON chats (org_id, lead_key);

CREATE TABLE messages (
    id                   bigserial PRIMARY KEY,
    org_id               text NOT NULL,
    chat_id              text NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    prospect_id          text,
    from_me              boolean NOT NULL,
    text                 text NOT NULL,
    sentiment            text,
    provider_message_id  text,
    at                   timestamptz NOT NULL
);
CREATE INDEX messages_chat_at ON messages (chat_id, at);

-- Drafted replies waiting to be approved (or dismissed).
CREATE TABLE reply_drafts (
    id           text PRIMARY KEY,
    org_id       text NOT NULL,
    prospect_id  text,
    chat_id      text NOT NULL,
    text         text NOT NULL,
    status       text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'dismissed')),
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX reply_drafts_chat ON reply_drafts (chat_id) WHERE status = 'pending';

CREATE TABLE needs_human (
    id             text PRIMARY KEY,
    org_id         text NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    campaign_id    text,
    prospect_id    text,
    chat_id        text NOT NULL,
    name           text NOT NULL DEFAULT '',
    message        text NOT NULL,
    ai_draft       text NOT NULL DEFAULT '',
    intent         text,
    reason         text NOT NULL,
    waiting_since  timestamptz NOT NULL,
    resolved_at    timestamptz
);
CREATE INDEX needs_human_open ON needs_human (org_id, waiting_since DESC) WHERE resolved_at IS NULL;

-- Follow-ups scheduled by the sequence; POST /inbox/stop and /inbox/block close them.
CREATE TABLE followups (
    id           text PRIMARY KEY,
    org_id       text NOT NULL,
    prospect_id  text NOT NULL,
    chat_id      text,
    due_at       timestamptz NOT NULL,
    step         integer NOT NULL,
    closed_at    timestamptz,
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX followups_open ON followups (prospect_id) WHERE closed_at IS NULL;

-- One row per stall of a prospect, so conversation_stalled fires once per stall.
CREATE TABLE stalls (
    id                text PRIMARY KEY,
    org_id            text NOT NULL,
    prospect_id       text NOT NULL,
    campaign_id       text NOT NULL,
    last_activity_at  timestamptz NOT NULL,
    stalled_at        timestamptz NOT NULL,
    resolved_at       timestamptz,
    UNIQUE (prospect_id, last_activity_at)
);

CREATE TABLE digest_runs (
    org_id   text NOT NULL,
    day      date NOT NULL,
    sent_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, day)
);

CREATE INDEX activities_org_campaign_at ON activities (org_id, campaign_id, at);
CREATE INDEX activities_org_account_at ON activities (org_id, account_id, at);
