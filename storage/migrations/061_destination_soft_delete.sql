-- A deleted destination is kept (disabled, its credentials erased) with deleted_at set, hidden
-- from every list and lookup, so its attempt log and deliveries stay readable by id until the
-- delivery history's retention removes them; the row itself goes with them.
ALTER TABLE destinations ADD COLUMN deleted_at timestamptz;
CREATE INDEX destinations_deleted ON destinations (deleted_at) WHERE deleted_at IS NOT NULL;

-- A Test send belongs to no delivery row; webhook_id is the webhook-id it was sent with, shown
-- as the attempt's delivery_id so the two can be matched.
ALTER TABLE delivery_attempts ADD COLUMN webhook_id text;
