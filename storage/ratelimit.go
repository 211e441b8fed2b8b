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
	err = s.pool.QueryRow(ctx, `INSERT INTO rate_windows (org_id, bucket, window_start, used) VALUES ($1, $2, $3, 1)
		ON CONFLICT (org_id, bucket, window_start) DO UPDATE SET used = rate_windows.used + 1
		RETURNING used`, orgID, bucket, windowStart).Scan(&used)
	if err != nil {
		return 0, windowStart, fmt.Errorf("rate limit: %w", err)
	}
	return used, windowStart, nil
}

// PruneRateWindows deletes finished windows; a janitor calls it now and then.
func (s *Store) PruneRateWindows(ctx context.Context, before time.Time) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM rate_windows WHERE window_start < $1`, before)
	return err
}
