-- GET /analytics/daily reads a per-day rollup of the activity log instead of the log itself:
-- summing a million activity rows over 92 days takes ~700 ms in PostgreSQL, summing the rollup
-- (days x campaigns x accounts rows) takes a few. The rollup is kept exact by statement-level
-- triggers on activities, so every writer of activities (engine, outcomes, simulate) feeds it
-- without knowing it exists, in the same transaction as the activity itself.
--
-- One row per organization, UTC day, campaign and LinkedIn account ('' when none). Only
-- activities of a campaign are rolled up: the analytics count only people of campaigns.
-- positive_replies and negative_replies hold every classified reply; the rule that they are
-- shown only from 2026-07-02 on is applied when reading, not here.

CREATE TABLE activity_daily (
    org_id                text NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    day                   date NOT NULL,
    campaign_id           text NOT NULL,
    account_id            text NOT NULL DEFAULT '',
    invites_sent          bigint NOT NULL DEFAULT 0,
    connections_accepted  bigint NOT NULL DEFAULT 0,
    messages_sent         bigint NOT NULL DEFAULT 0,
    replies               bigint NOT NULL DEFAULT 0,
    positive_replies      bigint NOT NULL DEFAULT 0,
    negative_replies      bigint NOT NULL DEFAULT 0,
    bookings              bigint NOT NULL DEFAULT 0,
    invites_withdrawn     bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (org_id, day, campaign_id, account_id)
);

-- activity_daily_add_sql is the upsert of the signed counts (sgn +1 or -1) of the activity rows
-- that src selects: a query over a trigger's transition tables or over activities itself. It
-- returns the statement's text because transition tables are visible only in the trigger
-- function itself, so the trigger must EXECUTE it there.
CREATE FUNCTION activity_daily_add_sql(src text) RETURNS text LANGUAGE sql IMMUTABLE AS $fn$
    SELECT format($q$
    INSERT INTO activity_daily AS d (org_id, day, campaign_id, account_id, invites_sent,
        connections_accepted, messages_sent, replies, positive_replies, negative_replies, bookings,
        invites_withdrawn)
    SELECT r.org_id, (r.at AT TIME ZONE 'UTC')::date, r.campaign_id, coalesce(r.account_id, ''),
        coalesce(sum(r.sgn) FILTER (WHERE r.kind = 'invite_sent'), 0),
        coalesce(sum(r.sgn) FILTER (WHERE r.kind = 'connection_accepted'), 0),
        coalesce(sum(r.sgn) FILTER (WHERE r.kind = 'message_sent'), 0),
        coalesce(sum(r.sgn) FILTER (WHERE r.kind = 'reply'), 0),
        coalesce(sum(r.sgn) FILTER (WHERE r.kind = 'reply' AND r.sentiment = 'positive'), 0),
        coalesce(sum(r.sgn) FILTER (WHERE r.kind = 'reply' AND r.sentiment = 'negative'), 0),
        coalesce(sum(r.sgn) FILTER (WHERE r.kind = 'booking'), 0),
        coalesce(sum(r.sgn) FILTER (WHERE r.kind = 'invite_withdrawn'), 0)
    FROM (%s) AS r
    WHERE r.campaign_id IS NOT NULL
      AND r.kind IN ('invite_sent', 'connection_accepted', 'message_sent', 'reply', 'booking', 'invite_withdrawn')
      -- a cascade from a deleted organization has nothing left to count into
      AND EXISTS (SELECT 1 FROM orgs o WHERE o.id = r.org_id)
    GROUP BY 1, 2, 3, 4
    ORDER BY 1, 2, 3, 4
    ON CONFLICT (org_id, day, campaign_id, account_id) DO UPDATE SET
        invites_sent = d.invites_sent + excluded.invites_sent,
        connections_accepted = d.connections_accepted + excluded.connections_accepted,
        messages_sent = d.messages_sent + excluded.messages_sent,
        replies = d.replies + excluded.replies,
        positive_replies = d.positive_replies + excluded.positive_replies,
        negative_replies = d.negative_replies + excluded.negative_replies,
        bookings = d.bookings + excluded.bookings,
        invites_withdrawn = d.invites_withdrawn + excluded.invites_withdrawn
    $q$, src)
$fn$;

CREATE FUNCTION activity_daily_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        EXECUTE activity_daily_add_sql('SELECT n.*, 1 AS sgn FROM new_rows n');
    ELSIF TG_OP = 'DELETE' THEN
        EXECUTE activity_daily_add_sql('SELECT o.*, -1 AS sgn FROM old_rows o');
    ELSE
        EXECUTE activity_daily_add_sql('SELECT o.*, -1 AS sgn FROM old_rows o UNION ALL SELECT n.*, 1 AS sgn FROM new_rows n');
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER activity_daily_insert AFTER INSERT ON activities
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION activity_daily_sync();
CREATE TRIGGER activity_daily_update AFTER UPDATE ON activities
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION activity_daily_sync();
CREATE TRIGGER activity_daily_delete AFTER DELETE ON activities
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION activity_daily_sync();

-- Activities written before this migration.
DO $$ BEGIN EXECUTE activity_daily_add_sql('SELECT a.*, 1 AS sgn FROM activities a'); END $$;
