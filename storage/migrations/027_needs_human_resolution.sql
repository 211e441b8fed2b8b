-- A needs-human item remembers the draft it holds and how it was resolved (approved, dismissed,
-- closed by stop/block) and by whom.
ALTER TABLE needs_human
    ADD COLUMN draft_id    text,
    ADD COLUMN resolution  text,
    ADD COLUMN resolved_by text;
