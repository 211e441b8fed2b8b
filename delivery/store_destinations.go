package delivery

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
	"outreachd/storage"
)

// MaxDestinationsPerOrg is the documented limit: the eleventh is refused.
const MaxDestinationsPerOrg = 10

// Destination is one event destination of an organization. Secrets are only ever held here
// sealed (SecretBox); the database never sees them in the clear.
type Destination struct {
	ID    string
	OrgID string
	Name  string
	Kind  string
	// URL is the HTTPS endpoint, or a Slack incoming-webhook URL; "" for a Slack bot destination.
	URL              string
	SlackChannel     string
	SlackTokenSealed *string
	SecretSealed     *string
	// PreviousSecretSealed is the replaced secret that still signs beside SecretSealed until
	// RotationEndsAt (secret rotation with an overlap); both nil when no rotation is running
	// (an expired one reads as none).
	PreviousSecretSealed *string
	RotationEndsAt       *time.Time
	// Events holds the selected kinds, or exactly ["all"].
	Events []string
	// Filter narrows the events of the selected kinds: the filter as the client gave it, compacted
	// (outreach.ParseFilter checked it against them); nil for none.
	Filter json.RawMessage
	// RateLimitPerSecond caps the attempts towards the destination that start in any one-second
	// window, across every process (1–1000); nil for none.
	RateLimitPerSecond  *int
	Enabled             bool
	ConsecutiveFailures int
	CreatedAt           time.Time
	UpdatedAt           time.Time
}

const destinationColumns = `id, org_id, name, kind, url, coalesce(slack_channel, ''), slack_token_sealed,
	events, filter, rate_limit_per_second, secret_sealed, enabled, consecutive_failures, created_at, updated_at,
	CASE WHEN previous_secret_expires_at > now() THEN previous_secret_sealed END,
	CASE WHEN previous_secret_expires_at > now() AND previous_secret_sealed IS NOT NULL THEN previous_secret_expires_at END`

func scanDestination(row pgx.Row) (Destination, error) {
	var d Destination
	err := row.Scan(&d.ID, &d.OrgID, &d.Name, &d.Kind, &d.URL, &d.SlackChannel, &d.SlackTokenSealed,
		&d.Events, &d.Filter, &d.RateLimitPerSecond, &d.SecretSealed, &d.Enabled, &d.ConsecutiveFailures, &d.CreatedAt, &d.UpdatedAt,
		&d.PreviousSecretSealed, &d.RotationEndsAt)
	return d, err
}

// DropExpiredSecrets clears previous secrets whose overlap window has ended (the janitor calls
// it), so a replaced secret does not stay in the database, even sealed, longer than needed.
func (s *Store) DropExpiredSecrets(ctx context.Context) error {
	_, err := s.pool.Exec(ctx, `UPDATE destinations SET previous_secret_sealed = NULL, previous_secret_expires_at = NULL
		WHERE previous_secret_expires_at <= now()`)
	if err != nil {
		return fmt.Errorf("drop expired secrets: %w", err)
	}
	return nil
}

func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// nullJSON is raw JSON as a parameter: nil (SQL NULL) when there is none.
func nullJSON(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	return string(raw)
}

// ensureThrottle gives a destination with a rate limit its budget row (destination_throttles), in
// the transaction that set the limit, so a claim always finds one to lock: a throttled
// destination without it would be claimed as if it had no limit.
func ensureThrottle(ctx context.Context, tx *storage.Tx, d Destination) error {
	if d.RateLimitPerSecond == nil {
		return nil
	}
	if _, err := tx.Exec(ctx, `INSERT INTO destination_throttles (destination_id) VALUES ($1)
		ON CONFLICT (destination_id) DO NOTHING`, d.ID); err != nil {
		return fmt.Errorf("destination %s: its throttle: %w", d.ID, err)
	}
	return nil
}

// CreateDestination inserts d (its ID and timestamps are assigned here). The organization row
// is locked while counting, so concurrent creations cannot together pass the limit of ten.
func (s *Store) CreateDestination(ctx context.Context, d Destination) (Destination, error) {
	d.ID = outreach.NewID("dst")
	if len(d.Events) == 0 {
		d.Events = []string{string(outreach.EventsAll)}
	}
	var out Destination
	err := s.db.InTx(ctx, func(tx *storage.Tx) error {
		var id string
		if err := tx.QueryRow(ctx, `SELECT id FROM orgs WHERE id = $1 FOR UPDATE`, d.OrgID).Scan(&id); err != nil {
			return storage.NotFound(err, "org "+d.OrgID)
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM destinations WHERE org_id = $1 AND deleted_at IS NULL`, d.OrgID).Scan(&n); err != nil {
			return err
		}
		if n >= MaxDestinationsPerOrg {
			return outreach.Invalidf("the organization already has %d destinations, the maximum; delete one before adding another", n)
		}
		var err error
		out, err = scanDestination(tx.QueryRow(ctx, `INSERT INTO destinations
			(id, org_id, name, kind, url, slack_channel, slack_token_sealed, events, secret_sealed, enabled,
			 filter, rate_limit_per_second)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING `+destinationColumns,
			d.ID, d.OrgID, d.Name, d.Kind, d.URL, nullIfEmpty(d.SlackChannel), d.SlackTokenSealed, d.Events,
			d.SecretSealed, d.Enabled, nullJSON(d.Filter), d.RateLimitPerSecond))
		if err != nil {
			return err
		}
		return ensureThrottle(ctx, tx, out)
	})
	if err != nil {
		return Destination{}, outreach.WrapServerErr(err, "create destination")
	}
	return out, nil
}

// GetDestination reads one destination of orgID; another organization's is not found.
func (s *Store) GetDestination(ctx context.Context, orgID, id string) (Destination, error) {
	d, err := scanDestination(s.pool.QueryRow(ctx, `SELECT `+destinationColumns+`
		FROM destinations WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL`, orgID, id))
	if err != nil {
		return Destination{}, storage.NotFound(err, "destination "+id)
	}
	return d, nil
}

// DestinationByID reads a destination of any organization. Only the operator CLI may use it:
// it is the one query here not scoped by an organization.
func (s *Store) DestinationByID(ctx context.Context, id string) (Destination, error) {
	d, err := scanDestination(s.pool.QueryRow(ctx, `SELECT `+destinationColumns+`
		FROM destinations WHERE id = $1 AND deleted_at IS NULL`, id))
	if err != nil {
		return Destination{}, storage.NotFound(err, "destination "+id)
	}
	return d, nil
}

// ListDestinations returns every destination of orgID, oldest first (the order they were added).
func (s *Store) ListDestinations(ctx context.Context, orgID string) ([]Destination, error) {
	return s.queryDestinations(ctx, `SELECT `+destinationColumns+` FROM destinations
		WHERE org_id = $1 AND deleted_at IS NULL ORDER BY created_at, id`, orgID)
}

func (s *Store) queryDestinations(ctx context.Context, sql string, args ...any) ([]Destination, error) {
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("list destinations: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Destination, error) { return scanDestination(r) })
	if err != nil {
		return nil, fmt.Errorf("list destinations: %w", err)
	}
	return out, nil
}

// UpdateDestination reads the destination under a row lock, lets change edit it, and writes the
// mutable fields back (ID, OrgID, Kind and the counters are kept). change must not do I/O: it
// runs while the row is locked. An error from change aborts without writing anything.
func (s *Store) UpdateDestination(ctx context.Context, orgID, id string, change func(*Destination) error) (Destination, error) {
	var out Destination
	err := s.db.InTx(ctx, func(tx *storage.Tx) error {
		d, err := scanDestination(tx.QueryRow(ctx, `SELECT `+destinationColumns+`
			FROM destinations WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL FOR UPDATE`, orgID, id))
		if err != nil {
			return storage.NotFound(err, "destination "+id)
		}
		if err := change(&d); err != nil {
			return err
		}
		if len(d.Events) == 0 {
			d.Events = []string{string(outreach.EventsAll)}
		}
		out, err = scanDestination(tx.QueryRow(ctx, `UPDATE destinations SET name = $3, url = $4,
			slack_channel = $5, slack_token_sealed = $6, events = $7, secret_sealed = $8, enabled = $9,
			consecutive_failures = CASE WHEN $9 AND NOT enabled THEN 0 ELSE consecutive_failures END,
			previous_secret_sealed = $10, previous_secret_expires_at = $11,
			filter = $12, rate_limit_per_second = $13,
			updated_at = now()
			WHERE org_id = $1 AND id = $2 RETURNING `+destinationColumns,
			orgID, id, d.Name, d.URL, nullIfEmpty(d.SlackChannel), d.SlackTokenSealed, d.Events, d.SecretSealed, d.Enabled,
			d.PreviousSecretSealed, d.RotationEndsAt, nullJSON(d.Filter), d.RateLimitPerSecond))
		if err != nil {
			return err
		}
		return ensureThrottle(ctx, tx, out)
	})
	if err != nil {
		return Destination{}, outreach.WrapServerErr(err, "update destination")
	}
	return out, nil
}

// DeleteDestination deletes a destination for its users: it disappears from every list and
// lookup, nothing more is sent to it (its pending deliveries fail with "destination deleted")
// and its signing secret and Slack credentials are erased, but the row stays, marked deleted,
// so its attempt log and deliveries remain readable by id (DestinationForLog) until
// PurgeDeletedDestinations removes it with them after the delivery history's retention.
func (s *Store) DeleteDestination(ctx context.Context, orgID, id string) error {
	return s.db.InTx(ctx, func(tx *storage.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE destinations SET deleted_at = now(), updated_at = now(), enabled = false,
				secret_sealed = NULL, slack_token_sealed = NULL, url = CASE WHEN kind = 'slack' THEN '' ELSE url END
			WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL`, orgID, id)
		if err != nil {
			return fmt.Errorf("delete destination: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return outreach.NotFound("destination %s", id)
		}
		b := &pgx.Batch{}
		b.Queue(`UPDATE deliveries SET status = 'failed', failed_at = now(), next_attempt_at = NULL, updated_at = now(),
			last_error = 'destination deleted' WHERE destination_id = $1 AND status = 'pending'`, id)
		b.Queue(`DELETE FROM delivery_queue WHERE destination_id = $1`, id)
		b.Queue(`DELETE FROM delivery_dedupe_legacy WHERE destination_id = $1`, id)
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return fmt.Errorf("delete destination %s: its deliveries: %w", id, err)
		}
		return nil
	})
}

// DestinationForLog reads a destination of orgID for its attempt and delivery logs: a deleted
// one too (deletedAt set), until it is purged.
func (s *Store) DestinationForLog(ctx context.Context, orgID, id string) (d Destination, deletedAt *time.Time, err error) {
	d, err = scanDestination(s.pool.QueryRow(ctx, `SELECT `+destinationColumns+`
		FROM destinations WHERE org_id = $1 AND id = $2`, orgID, id))
	if err != nil {
		return Destination{}, nil, storage.NotFound(err, "destination "+id)
	}
	err = s.pool.QueryRow(ctx, `SELECT deleted_at FROM destinations WHERE id = $1`, id).Scan(&deletedAt)
	return d, deletedAt, err
}

// PurgeDeletedDestinations removes the destinations deleted before before, with their
// deliveries, dedupe keys, attempts and the payloads only their deliveries used, and returns
// how many destinations went.
func (s *Store) PurgeDeletedDestinations(ctx context.Context, before time.Time) (int, error) {
	var ids []string
	if err := s.pool.QueryRow(ctx, `SELECT coalesce(array_agg(id), '{}') FROM (SELECT id FROM destinations
		WHERE deleted_at < $1 ORDER BY deleted_at LIMIT 100) x`, before).Scan(&ids); err != nil {
		return 0, fmt.Errorf("purge deleted destinations: %w", err)
	}
	for _, id := range ids {
		err := s.db.InTx(ctx, func(tx *storage.Tx) error {
			// Its deliveries, dedupe keys and attempts would also go by ON DELETE CASCADE; deleting
			// them first finds the payloads they alone used (delivery_payloads has no key to
			// cascade from).
			b := &pgx.Batch{}
			b.Queue(`DELETE FROM delivery_attempts WHERE destination_id = $1`, id)
			b.Queue(`DELETE FROM delivery_dedupe_legacy WHERE destination_id = $1`, id)
			b.Queue(`DELETE FROM delivery_queue WHERE destination_id = $1`, id)
			b.Queue(`WITH gone AS (DELETE FROM deliveries WHERE destination_id = $1 RETURNING event_id)
				DELETE FROM delivery_payloads p WHERE p.event_id IN (SELECT event_id FROM gone)
				  AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = p.event_id AND d.destination_id <> $1)`, id)
			b.Queue(`DELETE FROM destinations WHERE id = $1 AND deleted_at IS NOT NULL`, id)
			return tx.SendBatch(ctx, b).Close()
		})
		if err != nil {
			return 0, fmt.Errorf("purge deleted destination %s: %w", id, err)
		}
	}
	return len(ids), nil
}
