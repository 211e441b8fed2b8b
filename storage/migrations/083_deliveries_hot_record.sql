-- Recording an attempt rewrites its delivery row (status, attempts, the last outcome). PostgreSQL
-- can write that new version as a heap-only tuple (HOT: no new index entries, a fraction of the
-- WAL) only when no index's key or predicate column changes value and the row's page has room.
-- The partial index of failed deliveries had `status` in its predicate, and status changes on
-- every final attempt, so every record wrote three index entries; and a full page (fillfactor
-- 100, rows only appended) left no room. The record's cost and its WAL with the change are in
-- docs/performance.md, "Design choices and their measurements".
--
-- failed_at (set when a delivery is given up, cleared when it is resent or recovered) carries the
-- partial index instead: a successful attempt leaves it NULL, so the record stays HOT. The check
-- keeps it in step with status.
ALTER TABLE deliveries ADD COLUMN failed_at timestamptz;
UPDATE deliveries SET failed_at = updated_at WHERE status = 'failed';
ALTER TABLE deliveries ADD CONSTRAINT deliveries_failed_at_check CHECK ((status = 'failed') = (failed_at IS NOT NULL));
CREATE INDEX deliveries_failed_org_at ON deliveries (org_id, created_at) WHERE failed_at IS NOT NULL;
DROP INDEX deliveries_failed_org;
-- Room on every page for the rewritten version of each row (each row is rewritten at least once;
-- page pruning reclaims the old version).
ALTER TABLE deliveries SET (fillfactor = 50);
