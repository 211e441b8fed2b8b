-- The provider's id of the invitation the engine sent a prospect, so that withdrawing it names
-- that invitation (a hosted LinkedIn API withdraws by id). NULL for invitations sent before it
-- was kept, or whose id the provider did not give; those are withdrawn by the person.
ALTER TABLE prospects ADD COLUMN invite_id text;
