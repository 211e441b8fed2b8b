-- A dispatch queue row may hold several deliveries: the fan-out queues the first attempts of one
-- destination's deliveries of a transaction in chunks of up to the hub's sends in flight per
-- destination (32), instead of a row each.
--
-- Every queue row used to be inserted by the fan-out, rewritten by its claim (its due time is a
-- key of its partial index, so the lease wrote a new row version and two index entries) and
-- deleted by the record: with one row per delivery that was a third of the database's work per
-- delivery. A chunk is inserted, leased and deleted once for up to 32
-- deliveries. What a chunk claims is read from the deliveries themselves: its members still
-- pending at its attempts (0), so a chunk claimed again after a process died mid-way gives only
-- the deliveries not yet finished. Measured in alternation: docs/performance.md, "The fan-out
-- statement".
--
-- A row is either one delivery's (id = the delivery's id, delivery_ids = {id}: retries, resends,
-- recovered deliveries, and every row queued before this migration) or a chunk (id = 'c:' and its
-- first delivery's id, attempts 0). The invariant of migration 082 becomes: a delivery is pending
-- if and only if exactly one row lists it with its attempts — its own row, or (attempts 0) the
-- chunk that queued it. A chunk also lists the members already finished while the others are in
-- flight; the process that claimed it deletes it with the record of its last member.
ALTER TABLE delivery_queue RENAME COLUMN delivery_id TO id;
ALTER TABLE delivery_queue ADD COLUMN delivery_ids text[];
UPDATE delivery_queue SET delivery_ids = ARRAY[id];
ALTER TABLE delivery_queue ALTER COLUMN delivery_ids SET NOT NULL;
