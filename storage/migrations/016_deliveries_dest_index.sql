-- deliveries_dest_created is dropped: every delivery wrote it twice (insert and the attempt's
-- non-HOT update), and no query needs it. The delivery log filters a destination within its
-- organization (deliveries_org_created; an organization has at most ten destinations), and the
-- dispatcher reads by due time. Deleting a destination (rare, an operator action) now finds its
-- deliveries by scanning the table (its cost grows with the delivery history).
DROP INDEX IF EXISTS deliveries_dest_created;
