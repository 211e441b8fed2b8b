-- Retention of the delivery hub's tables (RETENTION_ATTEMPTS, RETENTION_OUTBOX): what the
-- retention worker removed, per organization, so a resend or a recover that asks for something
-- removed is told so (410 past_retention) instead of "not found" or "nothing to recover".
-- removed_before is the latest created_at of a delivery of the organization that retention
-- removed (every delivery it removed was created at or before it); removed_upto_id the greatest
-- delivery id it removed (ids sort by their event's time).
CREATE TABLE delivery_retention (
    org_id           text PRIMARY KEY REFERENCES orgs(id) ON DELETE CASCADE,
    removed_before   timestamptz NOT NULL,
    removed_upto_id  text NOT NULL
);
