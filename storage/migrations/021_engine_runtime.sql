-- The outreach engine's working state (issue 4): the inbox of provider reports that every
-- LinkedIn event enters through (the provider's own and the operator's `admin simulate`), the
-- provider poll cursor, live engine instances, per-campaign scheduling and leases, and the
-- few columns the sequencer needs on top of 020.

-- Every report LinkedIn (or the operator, standing in for it) makes enters here and is handled
-- by one code path (engine.handleReport). Provider rows are appended by the serving engine's
-- poller (unique per provider instance and sequence number, so a re-poll inserts nothing);
-- operator rows by `admin simulate ...`. state: new -> handled | failed, or new -> forwarded
-- when a simulator in the serving process re-enacted an operator row so that its own report
-- (a provider row) carries the fact and the simulator's state agrees with the database.
CREATE TABLE provider_reports (
    id                   bigserial PRIMARY KEY,
    source               text NOT NULL CHECK (source IN ('provider', 'operator')),
    provider             text,
    provider_seq         bigint,
    kind                 text NOT NULL,
    org_id               text,
    account_id           text,
    provider_account_id  text,
    prospect_id          text,
    profile_key          text,
    provider_id          text,
    attendee_name        text,
    chat_id              text,
    message_id           text,
    text                 text,
    cooldown_hours       integer,
    at                   timestamptz NOT NULL,
    state                text NOT NULL DEFAULT 'new' CHECK (state IN ('new', 'forwarded', 'handled', 'failed')),
    result               jsonb,
    error                text,
    handled_at           timestamptz,
    created_at           timestamptz NOT NULL DEFAULT now(),
    UNIQUE (provider, provider_seq)
);
CREATE INDEX provider_reports_new ON provider_reports (id) WHERE state = 'new';

-- Where each provider instance's Poll cursor stands.
CREATE TABLE provider_cursors (
    provider    text PRIMARY KEY,
    seq         bigint NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Serving engines say they are alive (wall-clock time), so `admin simulate` knows whether a
-- serving process will pick its report up or it must handle it itself.
-- clock_at is the instance's engine clock at seen_at and speed its rate, so a restart resumes a
-- sped-up virtual clock where it stood and the CLI can stamp operator reports in engine time.
CREATE TABLE engine_instances (
    id        text PRIMARY KEY,
    seen_at   timestamptz NOT NULL,
    clock_at  timestamptz NOT NULL,
    speed     double precision NOT NULL DEFAULT 1
);

-- engine_next_at: when the sequencer should next look at the campaign (engine clock);
-- the lease (wall clock) keeps one instance on one campaign at a time, which is what makes
-- the daily limit exact with several instances.
ALTER TABLE campaigns
    ADD COLUMN engine_next_at      timestamptz,
    ADD COLUMN engine_lease_until  timestamptz,
    ADD COLUMN engine_lease_owner  text;
CREATE INDEX campaigns_engine_due ON campaigns (engine_next_at NULLS FIRST) WHERE status = 'active';

-- step: the sequence step a send belongs to; NULL for sends outside the sequence (replies).
-- The daily limit counts the rows with a step.
ALTER TABLE activities ADD COLUMN step integer;
CREATE INDEX activities_campaign_sends ON activities (campaign_id, at) WHERE step IS NOT NULL;

ALTER TABLE prospects
    ADD COLUMN booking_start_at  timestamptz,
    ADD COLUMN withdrawn_at      timestamptz;
CREATE INDEX prospects_campaign_next_step ON prospects (campaign_id, next_step_at) WHERE next_step_at IS NOT NULL;
-- The engine only ever asks "what is due in this campaign"; with the global next_step_at index
-- present the planner walks it in time order and filters by campaign, reading other
-- campaigns' rows (measured: ~500 rows per lookup at 500 prospects per campaign).
DROP INDEX prospects_next_step;
-- Accepted leads not yet admitted to their campaign's sequence.
CREATE INDEX prospects_admit ON prospects (campaign_id)
    WHERE next_step_at IS NULL AND filter_verdict = 'accepted' AND status IN ('pending', 'active')
      AND sequence_ended_at IS NULL AND invited_at IS NULL AND connected_at IS NULL;
CREATE INDEX prospects_booking ON prospects (account_id, booking_start_at) WHERE booking_start_at IS NOT NULL;

-- A draft the guardrails let through is sent by the engine at or after auto_send_at; a draft
-- held for a person has none.
ALTER TABLE reply_drafts ADD COLUMN auto_send_at timestamptz;
CREATE INDEX reply_drafts_auto ON reply_drafts (auto_send_at) WHERE status = 'pending' AND auto_send_at IS NOT NULL;

CREATE INDEX followups_open_due ON followups (due_at) WHERE closed_at IS NULL;
CREATE INDEX stalls_open ON stalls (prospect_id) WHERE resolved_at IS NULL;
CREATE INDEX chats_prospect ON chats (prospect_id);

-- Simulated content (posts, market analyses, weekly reports): once per organization, kind
-- and period, however many instances run.
CREATE TABLE content_runs (
    org_id  text NOT NULL,
    kind    text NOT NULL,
    period  text NOT NULL,
    at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, kind, period)
);
-- engine_instances.clock_at/speed let a restarted engine resume its virtual clock.
