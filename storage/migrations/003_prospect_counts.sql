-- Prospect counts per campaign and status, kept exact by statement-level triggers on prospects.
-- GET /prospects answers pagination.total and GET /campaigns answers prospect_counts from here:
-- counting 100,000 prospect rows per request takes 20-40 ms in PostgreSQL, summing these rows
-- takes well under one. Every writer of prospects (lead push, engine, inbox stop/block) feeds it
-- without knowing it exists, in its own transaction.
--
-- Only a real change of campaign or status touches a counter row, so the engine's frequent
-- updates of other columns never wait on these rows. Rows are upserted in key order so that
-- two statements never take the same counter locks in opposite orders. Rows that reach zero stay
-- (readers skip them); no foreign keys, so cascaded deletes of campaigns and organizations can
-- decrement freely.

CREATE TABLE prospect_counts (
    campaign_id  text NOT NULL,
    status       text NOT NULL,
    org_id       text NOT NULL,
    n            bigint NOT NULL,
    PRIMARY KEY (campaign_id, status)
);
CREATE INDEX prospect_counts_org ON prospect_counts (org_id, status);

CREATE FUNCTION prospect_counts_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO prospect_counts AS c (campaign_id, status, org_id, n)
        SELECT campaign_id, status, min(org_id), count(*) FROM new_rows
        GROUP BY campaign_id, status ORDER BY campaign_id, status
        ON CONFLICT (campaign_id, status) DO UPDATE SET n = c.n + excluded.n;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO prospect_counts AS c (campaign_id, status, org_id, n)
        SELECT campaign_id, status, min(org_id), -count(*) FROM old_rows
        GROUP BY campaign_id, status ORDER BY campaign_id, status
        ON CONFLICT (campaign_id, status) DO UPDATE SET n = c.n + excluded.n;
    ELSE
        INSERT INTO prospect_counts AS c (campaign_id, status, org_id, n)
        SELECT d.campaign_id, d.status, min(d.org_id), sum(d.delta) FROM (
            SELECT o.campaign_id, o.status, o.org_id, -1 AS delta
              FROM old_rows o JOIN new_rows n ON n.id = o.id
             WHERE (o.campaign_id, o.status) IS DISTINCT FROM (n.campaign_id, n.status)
            UNION ALL
            SELECT n.campaign_id, n.status, n.org_id, 1
              FROM old_rows o JOIN new_rows n ON n.id = o.id
             WHERE (o.campaign_id, o.status) IS DISTINCT FROM (n.campaign_id, n.status)
        ) d
        GROUP BY d.campaign_id, d.status HAVING sum(d.delta) <> 0 ORDER BY d.campaign_id, d.status
        ON CONFLICT (campaign_id, status) DO UPDATE SET n = c.n + excluded.n;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER prospect_counts_insert AFTER INSERT ON prospects
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION prospect_counts_sync();
CREATE TRIGGER prospect_counts_update AFTER UPDATE ON prospects
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION prospect_counts_sync();
CREATE TRIGGER prospect_counts_delete AFTER DELETE ON prospects
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION prospect_counts_sync();

-- Prospects written before this migration.
INSERT INTO prospect_counts (campaign_id, status, org_id, n)
SELECT campaign_id, status, min(org_id), count(*) FROM prospects GROUP BY campaign_id, status;
