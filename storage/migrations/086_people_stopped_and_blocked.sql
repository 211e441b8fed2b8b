-- The people stopped (POST /inbox/stop) and blocked (POST /inbox/block) as the application lists
-- them under Do not contact, and who did what.
--
-- person_stops: one row per person stopped and not resumed, keyed by the person's lead key
-- ("in:<handle>" or "id:<member id>"). The prospect rows keep the sequence position themselves
-- (paused_at, paused_next_step_at, current_step); this row is the person, so a stranger stopped in
-- a conversation (no prospect) is listed too, and Resume finds what to undo.
CREATE TABLE person_stops (
    org_id      text NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    key         text NOT NULL,
    member_id   text NOT NULL DEFAULT '',
    -- how the person is shown: their profile URL, or their member id when no handle is known
    value       text NOT NULL,
    stopped_at  timestamptz NOT NULL,
    -- "user:<id>" (the application) or "key:<id>" (the API); null for stops made before this column
    stopped_by  text,
    PRIMARY KEY (org_id, key)
);
CREATE INDEX person_stops_org_time ON person_stops (org_id, stopped_at DESC, key);

-- blocked_at marks an account entry made by a block (the person was also stopped, their drafts
-- dismissed and their sequences ended); added_by is who added or blocked.
ALTER TABLE blacklist ADD COLUMN added_by text, ADD COLUMN blocked_at timestamptz;
CREATE INDEX blacklist_org_blocked ON blacklist (org_id, blocked_at DESC) WHERE blocked_at IS NOT NULL;

-- author is who wrote a reply a person sent themselves from the inbox ("user:<id>"); null for
-- the drafter's replies (approved or sent on their own).
ALTER TABLE reply_drafts ADD COLUMN author text;

-- Entries made by a block before this migration: POST /blacklist never sets a reason, and a
-- block stamps the person's conversations and prospect rows with the entry's own time.
UPDATE blacklist b SET blocked_at = b.created_at
WHERE b.type = 'account' AND (b.reason IS NOT NULL
    OR EXISTS (SELECT 1 FROM prospects p WHERE p.org_id = b.org_id AND p.lead_key = b.key
        AND p.replies_stopped_at = b.created_at)
    OR EXISTS (SELECT 1 FROM chats c WHERE c.org_id = b.org_id
        AND (c.lead_key = b.key OR 'id:' || c.attendee_provider_id = b.key) AND c.replies_stopped_at = b.created_at));

-- People stopped before this migration and not blocked since: from their prospect rows, then
-- strangers from their conversations.
INSERT INTO person_stops (org_id, key, member_id, value, stopped_at)
SELECT DISTINCT ON (p.org_id, p.lead_key) p.org_id, p.lead_key,
    CASE WHEN p.lead_key LIKE 'id:%' THEN substr(p.lead_key, 4) ELSE '' END,
    coalesce(p.linkedin_url, substr(p.lead_key, 4)), p.replies_stopped_at
FROM prospects p
WHERE p.replies_stopped_at IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM blacklist b WHERE b.org_id = p.org_id AND b.type = 'account' AND b.key = p.lead_key)
ORDER BY p.org_id, p.lead_key, p.replies_stopped_at
ON CONFLICT DO NOTHING;

INSERT INTO person_stops (org_id, key, member_id, value, stopped_at)
SELECT DISTINCT ON (c.org_id, k.key) c.org_id, k.key, c.attendee_provider_id,
    CASE WHEN k.key LIKE 'in:%' THEN 'https://www.linkedin.com/in/' || substr(k.key, 4) ELSE substr(k.key, 4) END,
    c.replies_stopped_at
FROM chats c
CROSS JOIN LATERAL (SELECT coalesce(c.lead_key, 'id:' || nullif(c.attendee_provider_id, '')) AS key) k
WHERE c.replies_stopped_at IS NOT NULL AND c.prospect_id IS NULL AND k.key IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM blacklist b WHERE b.org_id = c.org_id AND b.type = 'account' AND b.key = k.key)
ORDER BY c.org_id, k.key, c.replies_stopped_at
ON CONFLICT DO NOTHING;
