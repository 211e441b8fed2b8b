-- deliveries_due (every pending row by due time) duplicated deliveries_due_first and
-- deliveries_due_retry, which the claims walk; only the queue gauges read it, and they now count
-- the two partial indexes. One index fewer on every delivery insert and claim.
DROP INDEX IF EXISTS deliveries_due;
