package delivery

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
)

// Retention of the delivery hub's tables. Each function removes at most one batch in one short
// statement (its own transaction, on the asynchronous pool: a removal lost in a database crash
// is simply done again), walking its table in key order from a cursor: ids and outbox keys grow
// with time, so the oldest rows come first and a pass stops as soon as it meets a row younger
// than the cutoff. A statement reads at most limit rows, whatever it deletes, so no statement
// holds locks or a snapshot for long and delivery goes on beside it. The Retention worker drives
// them, and the outbox's own pruning (storage.Store.PruneOutbox) beside them.

// PruneBatch is what one retention statement did.
type PruneBatch struct {
	Deleted int64
	// Next is the cursor for the following statement of the same pass.
	Next string
	// Done reports that the pass has reached rows younger than the cutoff (or the table's end).
	Done bool
}

// PruneDeliveries removes finished deliveries (succeeded or failed) created and last changed
// before cutoff, with their attempts (deleted in the same statement), from the limit rows after the
// cursor after. A pending delivery is never removed, however old. Each organization's latest
// removed created_at is kept in delivery_retention, for resend and recover to say what is gone.
func (s *Store) PruneDeliveries(ctx context.Context, cutoff time.Time, after string, limit int) (PruneBatch, error) {
	return s.pruneAfter(ctx, "prune deliveries", `
WITH head AS (
    SELECT id, created_at FROM deliveries WHERE id > $1 ORDER BY id LIMIT $2
), gone AS (
    DELETE FROM deliveries d USING head h
    WHERE d.id = h.id AND d.status <> 'pending' AND d.created_at < $3 AND d.updated_at < $3
    RETURNING d.org_id, d.id, d.created_at
), attempts AS (
    DELETE FROM delivery_attempts a USING gone g WHERE a.delivery_id = g.id
), marks AS (
    INSERT INTO delivery_retention AS r (org_id, removed_before, removed_upto_id)
    SELECT org_id, max(created_at), max(id) FROM gone GROUP BY org_id
    ON CONFLICT (org_id) DO UPDATE SET removed_before = greatest(r.removed_before, EXCLUDED.removed_before),
        removed_upto_id = greatest(r.removed_upto_id, EXCLUDED.removed_upto_id)
)
SELECT (SELECT count(*) FROM gone), (SELECT max(id) FROM head),
       (SELECT count(*) FROM head) < $2 OR EXISTS (SELECT 1 FROM head WHERE created_at >= $3)`,
		after, limit, cutoff)
}

// PruneAttempts removes attempts made before cutoff — test sends, and attempts of deliveries
// that are not pending (a pending delivery keeps its whole history) — from the limit rows after
// the cursor after (an attempt id, "" for the start).
func (s *Store) PruneAttempts(ctx context.Context, cutoff time.Time, after string, limit int) (PruneBatch, error) {
	var b PruneBatch
	var from, next int64
	if after != "" {
		if _, err := fmt.Sscan(after, &from); err != nil {
			return b, fmt.Errorf("prune attempts: cursor %q: %w", after, err)
		}
	}
	err := s.async.QueryRow(ctx, `
WITH head AS (
    SELECT id, at FROM delivery_attempts WHERE id > $1 ORDER BY id LIMIT $2
), gone AS (
    DELETE FROM delivery_attempts a USING head h
    WHERE a.id = h.id AND a.at < $3
      AND (a.delivery_id IS NULL OR NOT EXISTS (
          SELECT 1 FROM deliveries d WHERE d.id = a.delivery_id AND d.status = 'pending'))
    RETURNING 1
)
SELECT (SELECT count(*) FROM gone), coalesce((SELECT max(id) FROM head), $1),
       (SELECT count(*) FROM head) < $2 OR EXISTS (SELECT 1 FROM head WHERE at >= $3)`,
		from, limit, cutoff).Scan(&b.Deleted, &next, &b.Done)
	if err != nil {
		return b, fmt.Errorf("prune attempts: %w", err)
	}
	b.Next = fmt.Sprint(next)
	return b, nil
}

// PrunePayloads removes event payloads stored before cutoff that no delivery refers to any more,
// from the limit rows after the cursor after (an event id).
func (s *Store) PrunePayloads(ctx context.Context, cutoff time.Time, after string, limit int) (PruneBatch, error) {
	return s.pruneAfter(ctx, "prune payloads", `
WITH head AS (
    SELECT event_id, created_at FROM delivery_payloads WHERE event_id > $1 ORDER BY event_id LIMIT $2
), gone AS (
    DELETE FROM delivery_payloads p USING head h
    WHERE p.event_id = h.event_id AND p.created_at < $3
      AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = p.event_id)
    RETURNING 1
)
SELECT (SELECT count(*) FROM gone), (SELECT max(event_id) FROM head),
       (SELECT count(*) FROM head) < $2 OR EXISTS (SELECT 1 FROM head WHERE created_at >= $3)`,
		after, limit, cutoff)
}

// retentionMark is what retention removed of orgID: the latest created_at and the greatest id
// of a removed delivery; ok is false when it removed none.
func (s *Store) retentionMark(ctx context.Context, orgID string) (before time.Time, uptoID string, ok bool, err error) {
	err = s.pool.QueryRow(ctx, `SELECT removed_before, removed_upto_id FROM delivery_retention WHERE org_id = $1`, orgID).Scan(&before, &uptoID)
	if errors.Is(err, pgx.ErrNoRows) {
		return before, "", false, nil
	}
	return before, uptoID, err == nil, err
}

// pastRetention explains a delivery id that was not found: when it sorts among the deliveries
// the retention policy already removed (ids sort by their event's time), the answer says so
// (ErrPastRetention) instead of "not found".
func (s *Store) pastRetention(ctx context.Context, orgID, deliveryID string) error {
	if !outreach.ValidID("dlv", deliveryID) {
		return nil
	}
	_, upto, found, err := s.retentionMark(ctx, orgID)
	if err != nil || !found || deliveryID > upto {
		return err
	}
	at, _ := outreach.IDTime(upto)
	return fmt.Errorf("delivery %s is no longer kept: finished deliveries, their attempts and payloads are removed after the retention period (RETENTION_ATTEMPTS), and this organization's deliveries of events up to %s are gone: %w",
		deliveryID, outreach.FormatTime(at), outreach.ErrPastRetention)
}

// recoverPastRetention refuses a recover range that begins where the retention policy already
// removed deliveries: failed deliveries of that time cannot be recovered any more, and a count
// of 0 would hide it.
func (s *Store) recoverPastRetention(ctx context.Context, orgID string, from time.Time) error {
	removed, _, found, err := s.retentionMark(ctx, orgID)
	if err != nil || !found || from.After(removed) {
		return err
	}
	return fmt.Errorf("from: deliveries of this organization created up to %s were removed with their payloads after the retention period (RETENTION_ATTEMPTS) and cannot be recovered; use a from after %s: %w",
		outreach.FormatTime(removed), outreach.FormatTime(removed), outreach.ErrPastRetention)
}

// pruneAfter runs one batch statement of a pass that walks its table by a text cursor: q takes
// the cursor ($1), the batch size ($2) and the cutoff ($3) and answers the rows removed, the
// batch's last key and whether the pass is done.
func (s *Store) pruneAfter(ctx context.Context, what, q string, after string, limit int, cutoff time.Time) (PruneBatch, error) {
	var b PruneBatch
	var next *string
	if err := s.async.QueryRow(ctx, q, after, limit, cutoff).Scan(&b.Deleted, &next, &b.Done); err != nil {
		return b, fmt.Errorf("%s: %w", what, err)
	}
	if next != nil {
		b.Next = *next
	}
	return b, nil
}
