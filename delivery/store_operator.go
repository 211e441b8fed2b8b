package delivery

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
	"outreachd/storage"
)

// This file holds what operators do to and read of one delivery: resend, recover a time range of
// failed ones, the delivery with its payload, and its attempts.

// requeueDue is the CTE that puts the deliveries a statement's CTE u returned (id,
// destination_id, attempts) back in the dispatch queue, due now: a finished one gets its queue row
// again, a pending one keeps its row, brought forward. A delivery still waiting for its first
// attempt in the chunk the fan-out queued it in (migration 084) stays there: it is due already,
// or being sent, and a row of its own beside the chunk would send it twice.
const requeueDue = `q AS (
		INSERT INTO delivery_queue (id, destination_id, attempts, next_attempt_at, delivery_ids)
		SELECT id, destination_id, attempts, now(), ARRAY[id] FROM u
		WHERE u.attempts > 0 OR NOT EXISTS (SELECT 1 FROM delivery_queue c
			WHERE c.destination_id = u.destination_id AND c.attempts = 0 AND c.id <> u.id AND u.id = ANY(c.delivery_ids))
		ON CONFLICT (id) DO UPDATE SET next_attempt_at = now()
	)`

// ResendDelivery schedules one more attempt of a delivery of orgID now, whatever its state, with
// trigger 'manual'. A finished delivery gets exactly one more attempt; a pending one keeps its
// remaining budget and is brought forward. One the retention policy removed is refused with
// outreach.ErrPastRetention.
func (s *Store) ResendDelivery(ctx context.Context, orgID, deliveryID string) error {
	tag, err := s.pool.Exec(ctx, `WITH u AS (
		UPDATE deliveries SET
			max_attempts = CASE WHEN status = 'pending' THEN greatest(max_attempts, attempts + 1) ELSE attempts + 1 END,
			status = 'pending', failed_at = NULL, next_attempt_at = now(), next_trigger = 'manual', updated_at = now()
		WHERE id = $1 AND org_id = $2
		  AND NOT EXISTS (SELECT 1 FROM destinations x WHERE x.id = destination_id AND x.deleted_at IS NOT NULL)
		RETURNING id, destination_id, attempts
	), `+requeueDue+`
	SELECT 1 FROM u`, deliveryID, orgID)
	if err != nil {
		return fmt.Errorf("resend %s: %w", deliveryID, err)
	}
	if tag.RowsAffected() == 0 {
		if err := s.pastRetention(ctx, orgID, deliveryID); err != nil {
			return err
		}
		return outreach.NotFound("delivery %s", deliveryID)
	}
	s.wakeDispatchers()
	return nil
}

// RecoverDeliveries puts the failed deliveries of orgID created in [from, to) (of one destination
// unless destinationID is "") back to pending, due now, with a fresh budget of attempts, and
// returns how many. A range that begins where retention already removed deliveries of the
// organization is refused (outreach.ErrPastRetention).
func (s *Store) RecoverDeliveries(ctx context.Context, orgID, destinationID string, from, to time.Time, attempts int) (int, error) {
	if err := s.recoverPastRetention(ctx, orgID, from); err != nil {
		return 0, err
	}
	var n int
	err := s.pool.QueryRow(ctx, `WITH u AS (
		UPDATE deliveries SET status = 'pending', failed_at = NULL, max_attempts = attempts + $4, next_attempt_at = now(),
			next_trigger = 'manual', updated_at = now()
		WHERE org_id = $1 AND failed_at IS NOT NULL AND created_at >= $2 AND created_at < $3
			AND ($5 = '' OR destination_id = $5)
			AND NOT EXISTS (SELECT 1 FROM destinations x WHERE x.id = destination_id AND x.deleted_at IS NOT NULL)
			RETURNING id, destination_id, attempts
	), `+requeueDue+`
	SELECT count(*)::int FROM u`, orgID, from, to, attempts, destinationID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("recover deliveries: %w", err)
	}
	if n > 0 {
		s.wakeDispatchers()
	}
	return n, nil
}

// Delivery is one delivery row as operators see it.
type Delivery struct {
	ID             string
	OrgID          string
	DestinationID  string
	EventID        string
	EventKind      string
	Payload        []byte
	Status         string
	Attempts       int
	MaxAttempts    int
	NextAttemptAt  *time.Time
	EmittedAt      time.Time
	CreatedAt      time.Time
	DeliveredAt    *time.Time
	LastStatusCode *int
	LastError      *string
}

const deliveryColumns = `d.id, d.org_id, d.destination_id, d.event_id, d.event_kind, pl.payload, d.status, d.attempts,
	d.max_attempts, d.next_attempt_at, d.emitted_at, d.created_at, d.delivered_at, d.last_status_code, d.last_error`

func scanDelivery(row pgx.Row) (Delivery, error) {
	var d Delivery
	err := row.Scan(&d.ID, &d.OrgID, &d.DestinationID, &d.EventID, &d.EventKind, &d.Payload, &d.Status, &d.Attempts,
		&d.MaxAttempts, &d.NextAttemptAt, &d.EmittedAt, &d.CreatedAt, &d.DeliveredAt, &d.LastStatusCode, &d.LastError)
	return d, err
}

// GetDelivery reads one delivery of orgID.
func (s *Store) GetDelivery(ctx context.Context, orgID, id string) (Delivery, error) {
	d, err := scanDelivery(s.pool.QueryRow(ctx, `SELECT `+deliveryColumns+` FROM deliveries d
		JOIN delivery_payloads pl ON pl.event_id = d.event_id WHERE d.id = $1 AND d.org_id = $2`, id, orgID))
	return d, storage.NotFound(err, "delivery "+id)
}

// DeliveryAttempts lists the attempts of one delivery of orgID in order.
func (s *Store) DeliveryAttempts(ctx context.Context, orgID, deliveryID string) ([]AttemptLogEntry, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+attemptColumns+` FROM delivery_attempts
		WHERE org_id = $1 AND delivery_id = $2 ORDER BY attempt, id`, orgID, deliveryID)
	if err != nil {
		return nil, fmt.Errorf("delivery attempts: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (AttemptLogEntry, error) { return scanAttempt(r) })
}
