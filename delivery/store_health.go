package delivery

import (
	"context"
	"fmt"
)

// DestinationFailures is one destination's run of failed attempts, for the operator log.
type DestinationFailures struct {
	ID, OrgID, Kind     string
	ConsecutiveFailures int
	Enabled             bool
}

// DestinationsFailing returns the destinations with failed attempts since their last success,
// and also those of watch (however they stand now, so a recovery is seen), at most limit.
func (s *Store) DestinationsFailing(ctx context.Context, watch []string, limit int) ([]DestinationFailures, error) {
	if watch == nil {
		watch = []string{}
	}
	rows, err := s.pool.Query(ctx, `SELECT id, org_id, kind, consecutive_failures, enabled FROM destinations
		WHERE consecutive_failures > 0 OR id = ANY($1) ORDER BY consecutive_failures DESC, id LIMIT $2`, watch, limit)
	if err != nil {
		return nil, fmt.Errorf("failing destinations: %w", err)
	}
	defer rows.Close()
	var out []DestinationFailures
	for rows.Next() {
		var d DestinationFailures
		if err := rows.Scan(&d.ID, &d.OrgID, &d.Kind, &d.ConsecutiveFailures, &d.Enabled); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}
