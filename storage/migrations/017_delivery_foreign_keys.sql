-- The delivery tables drop their foreign keys. Each delivery checked three on insert (its
-- organization, its destination, its dedupe key's destination) and each attempt two (its delivery,
-- its destination): five row locks per delivery on the same few destination rows, written to the
-- WAL and turned into multixacts when transactions overlap. EXPLAIN ANALYZE of the fan-out's
-- statement put the checks at about a third of its time (docs/performance.md).
--
-- What the keys did is now done by the code that owns these tables:
--   * storage.DeleteDestination deletes the destination's deliveries, dedupe keys, attempts and the
--     payloads no other delivery uses, in the destination's own transaction (was ON DELETE CASCADE);
--   * the fan-out writes deliveries only for destinations that exist (a join in its statement);
--   * the recorder drops attempts whose destination or delivery is gone;
--   * the dispatcher claims only deliveries of existing, enabled destinations, and the queue
--     gauges count only those.
-- A delivery written by a fan-out racing the deletion of its destination can outlive it; it is
-- never claimed, counted or listed (every reader joins destinations or filters by organization
-- through it), and costs one row. Organizations are never deleted.
ALTER TABLE deliveries DROP CONSTRAINT IF EXISTS deliveries_org_id_fkey;
ALTER TABLE deliveries DROP CONSTRAINT IF EXISTS deliveries_destination_id_fkey;
ALTER TABLE delivery_dedupe DROP CONSTRAINT IF EXISTS delivery_dedupe_destination_id_fkey;
ALTER TABLE delivery_attempts DROP CONSTRAINT IF EXISTS delivery_attempts_delivery_id_fkey;
ALTER TABLE delivery_attempts DROP CONSTRAINT IF EXISTS delivery_attempts_destination_id_fkey;
