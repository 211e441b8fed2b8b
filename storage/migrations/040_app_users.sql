-- The application in a browser: people who sign in, their server-side sessions, and the
-- failed sign-ins that throttle password guessing.

-- A person belongs to one organization. The email is the sign-in name, unique across the
-- service (the sign-in form asks for no organization); it is stored as typed and compared
-- lower-cased. password_hash is a PHC string (argon2id).
CREATE TABLE app_users (
    id             text PRIMARY KEY,
    org_id         text NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    email          text NOT NULL,
    password_hash  text NOT NULL,
    role           text NOT NULL DEFAULT 'member' CHECK (role IN ('owner', 'member')),
    created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX app_users_email ON app_users (lower(email));
CREATE INDEX app_users_org ON app_users (org_id);

-- Only the SHA-256 of a session token is kept: a copy of this table opens no session.
-- A session ends at expires_at (absolute) or when last_seen_at is older than the idle limit.
CREATE TABLE app_sessions (
    token_hash    bytea PRIMARY KEY,
    user_id       text NOT NULL REFERENCES app_users(id) ON DELETE CASCADE,
    created_at    timestamptz NOT NULL DEFAULT now(),
    last_seen_at  timestamptz NOT NULL DEFAULT now(),
    expires_at    timestamptz NOT NULL
);
CREATE INDEX app_sessions_user ON app_sessions (user_id);
CREATE INDEX app_sessions_expires ON app_sessions (expires_at);

-- One row per failed sign-in and throttle key ('account:<email>' or 'address:<ip>'), so the
-- limit holds across every instance that shares the database. Old rows are pruned as new ones
-- are written.
CREATE TABLE app_login_failures (
    key  text NOT NULL,
    at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX app_login_failures_key_at ON app_login_failures (key, at);
CREATE INDEX app_login_failures_at ON app_login_failures (at);

-- The API keys page shows a key's first characters and when it was last used.
ALTER TABLE api_keys ADD COLUMN prefix text;
ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;
CREATE INDEX api_keys_org_created ON api_keys (org_id, created_at DESC);
