-- A campaign with several seats shares its people among them: each new person goes to the seat
-- with the fewest of the campaign's people so far, counted from this index.
CREATE INDEX prospects_campaign_seat ON prospects (campaign_id, account_id) WHERE account_id IS NOT NULL;
