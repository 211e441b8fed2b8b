-- Every event with a campaign block carries the campaign's lifetime stats (docs/api.md, "Events"), summed
-- from the daily rollup of one campaign when the event's transaction commits: this index makes
-- that a read of the campaign's own rollup rows (days x accounts), not of its organization's.
-- It indexes a column the rollup's upserts never change, so they stay HOT updates.
CREATE INDEX activity_daily_campaign ON activity_daily (campaign_id);
