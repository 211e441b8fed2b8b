-- The dispatch queue: one narrow row per pending delivery, which claims lease and records remove
-- or reschedule, instead of the wide deliveries row itself.
--
-- A claim moved deliveries.next_attempt_at (the key of the due indexes), so it wrote a new
-- version of the whole delivery row and an entry in each of its four indexes; over a burst the
-- claim was the costliest statement of the database (pg_stat_statements). A claim now updates a
-- row of four columns with two indexes (its key and its budget's due index); a finished
-- attempt deletes it; a retry moves it. deliveries keeps the state operators read (status,
-- attempts, next_attempt_at as scheduled, the last outcome) and is written once per attempt.
-- Measured in alternation: docs/performance.md, "Design choices and their measurements".
--
-- Invariant, kept by every statement that changes a delivery's status (fan-out, claim, record,
-- resend, recover, destination deletion): a delivery is pending if and only if it has a row here,
-- with the same attempts.
CREATE TABLE delivery_queue (
    delivery_id     text PRIMARY KEY,
    destination_id  text NOT NULL,
    attempts        integer NOT NULL,
    -- when the next attempt is due; a claim moves it to the end of its lease
    next_attempt_at timestamptz NOT NULL
);
INSERT INTO delivery_queue (delivery_id, destination_id, attempts, next_attempt_at)
SELECT id, destination_id, attempts, coalesce(next_attempt_at, now()) FROM deliveries WHERE status = 'pending';
-- First attempts and retries are claimed from separate budgets, each through its own index.
CREATE INDEX delivery_queue_due_first ON delivery_queue (next_attempt_at) WHERE attempts = 0;
CREATE INDEX delivery_queue_due_retry ON delivery_queue (next_attempt_at) WHERE attempts > 0;
DROP INDEX IF EXISTS deliveries_due_first;
DROP INDEX IF EXISTS deliveries_due_retry;
