-- The OAuth 2.1 authorization server for assistants (MCP clients): clients registered
-- dynamically, one-time authorization codes, grants (one per consent that was exchanged for
-- tokens: the "connected assistants" a person sees and revokes) and the grant's tokens. Codes and
-- tokens are stored only as SHA-256 hashes.

CREATE TABLE oauth_clients (
    id             text PRIMARY KEY,
    name           text NOT NULL,
    redirect_uris  text[] NOT NULL,
    -- the address that registered it, to bound registrations per address
    registered_by  text NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now(),
    -- first time a person allowed it; clients never allowed are pruned after a week
    first_allowed_at  timestamptz
);
CREATE INDEX oauth_clients_created ON oauth_clients (created_at);
CREATE INDEX oauth_clients_registered_by ON oauth_clients (registered_by, created_at);

CREATE TABLE oauth_grants (
    id            text PRIMARY KEY,
    org_id        text NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    user_id       text NOT NULL,
    user_email    text NOT NULL,
    client_id     text NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
    scope         text NOT NULL CHECK (scope IN ('read', 'read_write')),
    created_at    timestamptz NOT NULL DEFAULT now(),
    last_used_at  timestamptz,
    revoked_at    timestamptz
);
CREATE INDEX oauth_grants_org ON oauth_grants (org_id, created_at DESC);

CREATE TABLE oauth_codes (
    code_hash       bytea PRIMARY KEY,
    client_id       text NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
    org_id          text NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    user_id         text NOT NULL,
    user_email      text NOT NULL,
    scope           text NOT NULL CHECK (scope IN ('read', 'read_write')),
    redirect_uri    text NOT NULL,
    code_challenge  text NOT NULL,
    resource        text NOT NULL DEFAULT '',
    expires_at      timestamptz NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    -- set when the code is exchanged: a second exchange revokes this grant
    grant_id        text REFERENCES oauth_grants(id) ON DELETE CASCADE
);
CREATE INDEX oauth_codes_expires ON oauth_codes (expires_at);

CREATE TABLE oauth_tokens (
    token_hash  bytea PRIMARY KEY,
    grant_id    text NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
    kind        text NOT NULL CHECK (kind IN ('access', 'refresh')),
    expires_at  timestamptz NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    -- refresh tokens: set when exchanged for a new pair (rotation); a second use revokes the grant
    used_at     timestamptz,
    revoked_at  timestamptz
);
CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);
CREATE INDEX oauth_tokens_expires ON oauth_tokens (expires_at);
