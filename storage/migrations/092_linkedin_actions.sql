-- LinkedIn actions taken safely: every action the engine takes on a seat (an invitation, a
-- sequence message, a withdrawal, a reply, a profile view) is recorded as started before the
-- provider is called and finished after, so that a crash or a lost answer is checked with the
-- provider before anything is sent again, and two instances cannot start the same action. The
-- rows are also what a seat's caps count.
CREATE TABLE linkedin_actions (
    id           text PRIMARY KEY,
    org_id       text NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    account_id   text NOT NULL REFERENCES linkedin_accounts(id) ON DELETE CASCADE,
    prospect_id  text,
    -- the reply draft a reply sends
    draft_id     text,
    kind         text NOT NULL CHECK (kind IN ('invite', 'message', 'withdraw', 'reply', 'profile_view')),
    -- the sequence step of an invitation or message (0 otherwise)
    step         integer NOT NULL DEFAULT 0,
    -- sha-256 of the trimmed text sent, to recognise the message when a lost answer is checked
    text_hash    text,
    -- started: the call may be under way; unknown: its answer was lost; done: carried out;
    -- failed: surely not carried out (it may be started again)
    state        text NOT NULL DEFAULT 'started' CHECK (state IN ('started', 'unknown', 'done', 'failed')),
    -- engine time
    started_at   timestamptz NOT NULL,
    finished_at  timestamptz,
    -- wall clock: a started action past its lease belongs to an instance that died mid-call
    lease_until  timestamptz NOT NULL,
    attempts     integer NOT NULL DEFAULT 1,
    invite_id    text,
    chat_id      text,
    message_id   text,
    error        text,
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX linkedin_actions_step ON linkedin_actions (prospect_id, kind, step)
    WHERE kind IN ('invite', 'message', 'withdraw');
CREATE UNIQUE INDEX linkedin_actions_draft ON linkedin_actions (draft_id) WHERE kind = 'reply';
CREATE INDEX linkedin_actions_use ON linkedin_actions (account_id, started_at) WHERE state <> 'failed';
CREATE INDEX linkedin_actions_open ON linkedin_actions (lease_until) WHERE state IN ('started', 'unknown');

-- A seat's pace and caps. next_action_at (engine time) is the earliest moment the seat may act
-- again, claimed under the seat's row lock; a NULL cap takes the engine's default.
ALTER TABLE linkedin_accounts
    ADD COLUMN next_action_at         timestamptz,
    ADD COLUMN invites_per_day        integer CHECK (invites_per_day >= 0),
    ADD COLUMN invites_per_week       integer CHECK (invites_per_week >= 0),
    ADD COLUMN messages_per_day       integer CHECK (messages_per_day >= 0),
    ADD COLUMN profile_views_per_day  integer CHECK (profile_views_per_day >= 0),
    ADD COLUMN max_pending_invites    integer CHECK (max_pending_invites >= 0);

-- The member id a profile look-up found, so that a person is looked up once.
ALTER TABLE prospects ADD COLUMN member_id text;
-- A seat's pending invitations (the pending cap).
CREATE INDEX prospects_seat_pending ON prospects (account_id)
    WHERE invited_at IS NOT NULL AND connected_at IS NULL AND withdrawn_at IS NULL;
