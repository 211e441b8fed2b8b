-- Keys the service generates for itself when the operator configured none. Today only
-- 'secrets_key': the AES-256 key that seals destination signing secrets and Slack bot tokens
-- when SECRETS_KEY is unset. A key kept next to the data it protects does not stop someone
-- holding a database dump; production sets SECRETS_KEY (docs/decisions/destinations.md).
CREATE TABLE service_keys (
    name        text PRIMARY KEY,
    value       bytea NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
