package engine

import (
	"context"
	"fmt"
	"time"

	"outreachd/storage"
)

// campaignLaunch is a campaign's first activation, for the operator log.
type campaignLaunch struct {
	ID, OrgID string
	At        time.Time
}

// campaignLaunches returns the campaigns launched (first activated, whichever process did it)
// after since (the database's clock), oldest first, at most limit, and the database's now to
// pass as since next time. A zero since returns none, only the now to start from.
func campaignLaunches(ctx context.Context, q storage.Querier, since time.Time, limit int) ([]campaignLaunch, time.Time, error) {
	var now time.Time
	if err := q.QueryRow(ctx, `SELECT now()`).Scan(&now); err != nil {
		return nil, now, fmt.Errorf("campaign launches: %w", err)
	}
	if since.IsZero() {
		return nil, now, nil
	}
	rows, err := q.Query(ctx, `SELECT id, org_id, started_at FROM campaigns
		WHERE started_at > $1 AND started_at <= $2 ORDER BY started_at LIMIT $3`, since, now, limit)
	if err != nil {
		return nil, now, fmt.Errorf("campaign launches: %w", err)
	}
	defer rows.Close()
	var out []campaignLaunch
	for rows.Next() {
		var m campaignLaunch
		if err := rows.Scan(&m.ID, &m.OrgID, &m.At); err != nil {
			return nil, now, err
		}
		out = append(out, m)
	}
	return out, now, rows.Err()
}
