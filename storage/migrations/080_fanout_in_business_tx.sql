-- Deliveries are now written by the business transactions themselves (storage/fanout.go), many at
-- once, instead of by one fan-out consumer at a time. A foreign key check locks the referenced row
-- FOR KEY SHARE once per inserted row: with dozens of concurrent pushes each writing hundreds of
-- deliveries, every one of them took the exclusive content lock of the same destinations (and
-- orgs) page a thousand times per statement, and the inserts spent most of their time waiting for
-- that page (measured: LWLock BufferContent was the first wait of the fan-out statement, 445 ms a
-- statement for 1,000 deliveries with 32 pushers). The keys are kept by the code instead:
-- deliveries and dedupe keys are written only for destinations read in the same transaction and
-- checked not deleted in the same statement; destinations are soft-deleted, and the purge of one
-- (PurgeDeletedDestinations) deletes its deliveries, dedupe keys and attempts explicitly;
-- organizations are never deleted.
ALTER TABLE deliveries DROP CONSTRAINT IF EXISTS deliveries_org_id_fkey;
ALTER TABLE deliveries DROP CONSTRAINT IF EXISTS deliveries_destination_id_fkey;
ALTER TABLE delivery_dedupe DROP CONSTRAINT IF EXISTS delivery_dedupe_destination_id_fkey;
