package storage

import (
	"context"
	"fmt"
	"time"
)

// TakeRateToken counts one request against an organization's budget for the minute containing
// now and returns how many were used in that minute, including this one. The counter lives in
// PostgreSQL so every instance of the service shares one budget per organization.
func (s *Store) TakeRateToken(ctx context.Context, orgID, bucket string, now time.Time) (used int, windowStart time.Time, err error) {
	windowStart = now.UTC().Truncate(time.Minute)
	err = s.async.QueryRow(ctx, `INSERT INTO rate_windows (org_id, bucket, window_start, used) VALUES ($1, $2, $3, 1)
		ON CONFLICT (org_id, bucket, window_start) DO UPDATE SET used = rate_windows.used + 1
		RETURNING used`, orgID, bucket, windowStart).Scan(&used)
	if err != nil {
		return 0, windowStart, fmt.Errorf("rate limit: %w", err)
	}
	return used, windowStart, nil
}

// AuthenticateAndSpend resolves a presented key and, when it is valid, counts one request
// against its organization's bucket for the minute containing now — in one statement, so a keyed
// request costs one round trip and one transaction before its handler instead of two. Unknown,
// revoked and expired keys are outreach.ErrNotFound and spend nothing (the CTE inserts no row).
// It runs on the asynchronous-commit pool (see Store.async).
func (s *Store) AuthenticateAndSpend(ctx context.Context, key, bucket string, now time.Time) (a KeyAuth, used int, windowStart time.Time, err error) {
	windowStart = now.UTC().Truncate(time.Minute)
	err = s.async.QueryRow(ctx, `WITH k AS (
			SELECT k.id, k.org_id, k.scope, o.rate_limit_per_minute
			FROM api_keys k JOIN orgs o ON o.id = k.org_id
			WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > $2)),
		w AS (
			INSERT INTO rate_windows (org_id, bucket, window_start, used) SELECT org_id, $3, $4, 1 FROM k
			ON CONFLICT (org_id, bucket, window_start) DO UPDATE SET used = rate_windows.used + 1
			RETURNING used),
		-- the API keys page shows when a key was last used, to the minute; the update is skipped
		-- (no row written or locked) while the stamp is less than a minute old
		u AS (
			UPDATE api_keys SET last_used_at = $2 WHERE id = (SELECT id FROM k)
			AND (last_used_at IS NULL OR last_used_at < $2 - interval '1 minute'))
		SELECT k.id, k.org_id, k.scope, k.rate_limit_per_minute, w.used FROM k CROSS JOIN w`,
		HashKey(key), now, bucket, windowStart).Scan(&a.KeyID, &a.OrgID, &a.Scope, &a.RateLimitPerMinute, &used)
	if err != nil {
		return KeyAuth{}, 0, windowStart, notFound(err, "api key")
	}
	return a, used, windowStart, nil
}

// PruneRateWindows deletes finished windows; a janitor calls it now and then.
func (s *Store) PruneRateWindows(ctx context.Context, before time.Time) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM rate_windows WHERE window_start < $1`, before)
	return err
}
