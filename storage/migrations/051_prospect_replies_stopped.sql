-- POST /inbox/stop sticks to the person, not only to the conversations that exist at the time
-- (issue 12): the person's prospect rows are stamped, and a chat recorded later for a stamped
-- prospect (or the same profile in the organization) starts with its replies stopped.
ALTER TABLE prospects ADD COLUMN replies_stopped_at timestamptz;
