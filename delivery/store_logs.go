package delivery

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// The logs of what the hub did, as the API, the application and the CLI read them: a
// destination's attempts (all, the newest of each, filtered pages), the organization's
// deliveries, and the hourly health of destinations. Every query is scoped by organization.

// AttemptLogEntry is one row of delivery_attempts as the Event Destinations view shows it.
type AttemptLogEntry struct {
	ID              int64
	DeliveryID      *string // for a test send, the webhook-id it was sent with (nil for older ones)
	DestinationID   string
	EventID         string
	EventKind       string
	Attempt         int
	Trigger         string // scheduled, manual or test
	At              time.Time
	URL             string
	StatusCode      int // 0 when no HTTP answer came
	Error           *string
	DurationMS      int
	ResponseExcerpt *string
	NextAttemptAt   *time.Time
	// ThrottledMS is set when the destination's rate limit held the attempt back: from when it
	// came due to its start (a wait, not a failure).
	ThrottledMS *int
}

// A Test send has no delivery row; its webhook-id stands in as its delivery_id.
const attemptColumns = `id, coalesce(delivery_id, webhook_id), destination_id, event_id, event_kind, attempt, trigger, at, url,
	status_code, error, duration_ms, response_excerpt, next_attempt_at, throttled_ms`

func scanAttempt(row pgx.Row) (AttemptLogEntry, error) {
	var a AttemptLogEntry
	err := row.Scan(&a.ID, &a.DeliveryID, &a.DestinationID, &a.EventID, &a.EventKind, &a.Attempt, &a.Trigger,
		&a.At, &a.URL, &a.StatusCode, &a.Error, &a.DurationMS, &a.ResponseExcerpt, &a.NextAttemptAt, &a.ThrottledMS)
	return a, err
}

// LastAttempts returns the newest attempt of each of destIDs (of any trigger, tests included:
// the view shows what last happened at the endpoint). Destinations never tried are absent.
func (s *Store) LastAttempts(ctx context.Context, orgID string, destIDs []string) (map[string]AttemptLogEntry, error) {
	out := make(map[string]AttemptLogEntry, len(destIDs))
	if len(destIDs) == 0 {
		return out, nil
	}
	// One index probe per destination (migration 042's index): a DISTINCT ON over the
	// organization's attempts sorted them all.
	rows, err := s.pool.Query(ctx, `SELECT `+attemptColumns+` FROM unnest($2::text[]) AS want(dest_id)
		CROSS JOIN LATERAL (SELECT * FROM delivery_attempts a WHERE a.destination_id = want.dest_id AND a.org_id = $1
			ORDER BY a.at DESC, a.id DESC LIMIT 1) last`, orgID, destIDs)
	if err != nil {
		return nil, fmt.Errorf("last attempts: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (AttemptLogEntry, error) { return scanAttempt(r) })
	if err != nil {
		return nil, fmt.Errorf("last attempts: %w", err)
	}
	for _, a := range list {
		out[a.DestinationID] = a
	}
	return out, nil
}

// AttemptLog pages through a destination's attempts, newest first, and counts them all; with
// throttled, only those its rate limit held back. The caller checks first that the destination
// belongs to orgID (GetDestination).
func (s *Store) AttemptLog(ctx context.Context, orgID, destID string, limit, offset int, throttled bool) ([]AttemptLogEntry, int, error) {
	where := `org_id = $1 AND destination_id = $2`
	if throttled {
		where += ` AND throttled_ms IS NOT NULL` // as migration 087's partial index
	}
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM delivery_attempts WHERE `+where,
		orgID, destID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("attempt log: %w", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT `+attemptColumns+` FROM delivery_attempts
		WHERE `+where+` ORDER BY at DESC, id DESC LIMIT $3 OFFSET $4`,
		orgID, destID, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("attempt log: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (AttemptLogEntry, error) { return scanAttempt(r) })
	if err != nil {
		return nil, 0, fmt.Errorf("attempt log: %w", err)
	}
	return list, total, nil
}

// DeliveryLogEntry is one row of deliveries without its payload.
type DeliveryLogEntry struct {
	ID             string
	DestinationID  string
	EventID        string
	EventKind      string
	Status         string // pending, succeeded, failed
	Attempts       int
	MaxAttempts    int
	NextAttemptAt  *time.Time
	EmittedAt      time.Time
	CreatedAt      time.Time
	UpdatedAt      time.Time
	DeliveredAt    *time.Time
	LastStatusCode *int
	LastError      *string
}

// DeliveryLogQuery filters DeliveryLog; zero fields do not filter. From and To bound created_at
// (From inclusive, To exclusive).
type DeliveryLogQuery struct {
	DestinationID string
	Status        string
	From, To      *time.Time
	Limit, Offset int
}

// DeliveryLog pages through the organization's deliveries, newest first, and counts the matches.
func (s *Store) DeliveryLog(ctx context.Context, orgID string, q DeliveryLogQuery) ([]DeliveryLogEntry, int, error) {
	where := `WHERE org_id = $1 AND ($2 = '' OR destination_id = $2) AND ($3 = '' OR status = $3)
		AND ($4::timestamptz IS NULL OR created_at >= $4) AND ($5::timestamptz IS NULL OR created_at < $5)`
	if q.Status == DeliveryFailed {
		// Written out, so the planner can use the partial index of failed deliveries
		// (deliveries_failed_org_at, migration 083) instead of reading all of the organization's.
		where += ` AND failed_at IS NOT NULL`
	}
	args := []any{orgID, q.DestinationID, q.Status, q.From, q.To}
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM deliveries `+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("delivery log: %w", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT id, destination_id, event_id, event_kind, status, attempts, max_attempts,
		next_attempt_at, emitted_at, created_at, updated_at, delivered_at, last_status_code, last_error
		FROM deliveries `+where+` ORDER BY created_at DESC, id DESC LIMIT $6 OFFSET $7`,
		append(args, q.Limit, q.Offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("delivery log: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (DeliveryLogEntry, error) {
		var d DeliveryLogEntry
		err := r.Scan(&d.ID, &d.DestinationID, &d.EventID, &d.EventKind, &d.Status, &d.Attempts, &d.MaxAttempts,
			&d.NextAttemptAt, &d.EmittedAt, &d.CreatedAt, &d.UpdatedAt, &d.DeliveredAt, &d.LastStatusCode, &d.LastError)
		return d, err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("delivery log: %w", err)
	}
	return list, total, nil
}

// HourHealth counts the attempts of one hour: delivered (2xx) and failed. Test sends are left
// out: they say nothing about the events the destination received.
type HourHealth struct {
	Hour      time.Time
	Delivered int
	Failed    int
}

// DestinationHealth returns, per destination of destIDs (of orgID), the attempts of each hour
// from since (truncated to the hour) on, oldest first, from the hourly rollup (migration 041).
// Hours without attempts are absent.
func (s *Store) DestinationHealth(ctx context.Context, orgID string, destIDs []string, since time.Time) (map[string][]HourHealth, error) {
	out := make(map[string][]HourHealth, len(destIDs))
	if len(destIDs) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT h.destination_id, h.hour, h.delivered, h.failed
		FROM delivery_health_hourly h JOIN destinations d ON d.id = h.destination_id AND d.org_id = $1
		WHERE h.destination_id = ANY($2) AND h.hour >= $3
		ORDER BY 1, 2`, orgID, destIDs, since.Truncate(time.Hour))
	if err != nil {
		return nil, fmt.Errorf("destination health: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var h HourHealth
		if err := rows.Scan(&id, &h.Hour, &h.Delivered, &h.Failed); err != nil {
			return nil, fmt.Errorf("destination health: %w", err)
		}
		out[id] = append(out[id], h)
	}
	return out, rows.Err()
}

// AttemptFilter narrows a destination's attempt log; zero fields do not filter. Outcome is
// "delivered" (2xx) or "failed"; Throttled keeps the attempts the rate limit held back.
type AttemptFilter struct {
	Event     string
	Outcome   string
	Throttled bool
	Limit     int
	Offset    int
}

// FilteredAttemptLog pages through a destination's attempts, newest first, with the filter
// applied; more reports whether a further page exists (no count: the page stays cheap on a long
// log). The caller checks first that the destination belongs to orgID.
func (s *Store) FilteredAttemptLog(ctx context.Context, orgID, destID string, f AttemptFilter) (list []AttemptLogEntry, more bool, err error) {
	// The conditions are spelled exactly as the partial indexes of migration 042, so the planner
	// can use them.
	where := `destination_id = $2 AND org_id = $1`
	args := []any{orgID, destID, f.Limit + 1, f.Offset}
	if f.Event != "" {
		args = append(args, f.Event)
		where += ` AND event_kind = $5`
	}
	if f.Throttled {
		where += ` AND throttled_ms IS NOT NULL`
	}
	switch f.Outcome {
	case "delivered":
		where += ` AND (error IS NULL AND status_code BETWEEN 200 AND 299)`
	case "failed":
		where += ` AND NOT (error IS NULL AND status_code BETWEEN 200 AND 299)`
	}
	rows, err := s.pool.Query(ctx, `SELECT `+attemptColumns+` FROM delivery_attempts WHERE `+where+`
		ORDER BY at DESC, id DESC LIMIT $3 OFFSET $4`, args...)
	if err != nil {
		return nil, false, fmt.Errorf("attempt log: %w", err)
	}
	list, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (AttemptLogEntry, error) { return scanAttempt(r) })
	if err != nil {
		return nil, false, fmt.Errorf("attempt log: %w", err)
	}
	if len(list) > f.Limit {
		return list[:f.Limit], true, nil
	}
	return list, false, nil
}
