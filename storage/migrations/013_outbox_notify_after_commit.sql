-- The outbox wake-up moves out of business transactions. A NOTIFY inside a transaction takes
-- PostgreSQL's one cluster-wide notify lock at commit and holds it through the commit's WAL flush,
-- so every transaction that wrote an event committed one at a time: at 200 single-event pushes a
-- second, pg_stat_activity showed most backends waiting on "Lock: object" at commit (measured).
-- storage.Store now sends NOTIFY outbox itself, after the commit, coalesced, from a transaction
-- that writes nothing (so it holds the lock for microseconds).
DROP TRIGGER IF EXISTS watermill_events_notify ON "watermill_events";
DROP FUNCTION IF EXISTS outreachd_notify_outbox();
