-- When a rate-limited seat may act again, to the second, as the provider said it (Unipile's
-- Retry-After): cooldown_hours alone rounds a wait of seconds up to an hour. NULL for reports
-- that give only hours (the simulator, an operator's stand-in): the cooldown ends at + hours.
ALTER TABLE provider_reports ADD COLUMN cooldown_until timestamptz;
