package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
	"outreachd/storage"
)

// Where each seat's periodic reconciliation stands (seat_syncs). A run leases its seat (wall
// clock), so one instance at a time reconciles it, and finishes by recording what it found
// and its new watermark in one transaction: a run that fails or loses its lease records
// nothing, and the next one starts from the same watermark.

// ClaimSeatSyncs leases, for lease, up to limit seats whose reconciliation is due at now (never
// run, or last run at least interval before now, and not leased by a live run) and returns
// where each stands. A seat never reconciled starts at the moment it joined the service. now is
// the reconciliation's clock; leases run on the database's.
func (pi *ProviderInbox) ClaimSeatSyncs(ctx context.Context, now time.Time, interval, lease time.Duration, limit int) ([]outreach.SeatSync, error) {
	var out []outreach.SeatSync
	err := pi.st.InTx(ctx, func(tx *storage.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO seat_syncs (provider, provider_account_id, since)
			SELECT $1, a.provider_account_id, a.created_at FROM linkedin_accounts a
			ON CONFLICT (provider, provider_account_id) DO NOTHING`, pi.provider); err != nil {
			return fmt.Errorf("seat syncs: %w", err)
		}
		rows, err := tx.Query(ctx, `UPDATE seat_syncs s SET lease_until = now() + make_interval(secs => $3), lease_owner = $4
			FROM (SELECT provider, provider_account_id FROM seat_syncs
				WHERE provider = $1 AND lease_until < now()
				  AND (synced_at IS NULL OR synced_at <= $6::timestamptz - make_interval(secs => $2))
				  AND provider_account_id IN (SELECT provider_account_id FROM linkedin_accounts)
				ORDER BY synced_at NULLS FIRST, provider_account_id LIMIT $5 FOR UPDATE SKIP LOCKED) due
			WHERE s.provider = due.provider AND s.provider_account_id = due.provider_account_id
			RETURNING s.provider_account_id, s.since, s.status, s.pending`,
			pi.provider, interval.Seconds(), lease.Seconds(), pi.owner, limit, now)
		if err != nil {
			return fmt.Errorf("claim seat syncs: %w", err)
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (outreach.SeatSync, error) {
			var s outreach.SeatSync
			err := r.Scan(&s.AccountID, &s.Since, &s.Status, &s.Pending)
			return s, err
		})
		return err
	})
	return out, err
}

// errLeaseLost is a reconciliation that ran past its lease while another instance took the seat.
var errLeaseLost = errors.New("the seat's reconciliation lease was lost to another instance")

// FinishSeatSync records what a reconciliation that started at now found (each report once, as
// RecordReports) and where the seat now stands, in one transaction, and lets go of the lease;
// it records nothing when the lease was lost meanwhile.
func (pi *ProviderInbox) FinishSeatSync(ctx context.Context, now time.Time, next outreach.SeatSync, reports []outreach.LinkedInReport) (int, error) {
	n := 0
	err := pi.st.InTx(ctx, func(tx *storage.Tx) error {
		pending := next.Pending
		if pending == nil {
			pending = []string{}
		}
		tag, err := tx.Exec(ctx, `UPDATE seat_syncs SET since = $3, status = $4, pending = $5, synced_at = $7,
			lease_until = '-infinity', lease_owner = NULL
			WHERE provider = $1 AND provider_account_id = $2 AND lease_owner = $6 AND lease_until >= now()`,
			pi.provider, next.AccountID, next.Since, next.Status, pending, pi.owner, now)
		if err != nil {
			return fmt.Errorf("finish seat sync: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("seat %s: %w", next.AccountID, errLeaseLost)
		}
		n, err = insertDedupedReports(ctx, tx, pi.provider, reports)
		return err
	})
	return n, err
}

// ReleaseSeatSync lets go of a seat's lease after a failed run, leaving its watermark as it
// was, so that the next claim retries it.
func (pi *ProviderInbox) ReleaseSeatSync(ctx context.Context, accountID string) error {
	_, err := pi.st.Pool().Exec(ctx, `UPDATE seat_syncs SET lease_until = '-infinity', lease_owner = NULL
		WHERE provider = $1 AND provider_account_id = $2 AND lease_owner = $3`, pi.provider, accountID, pi.owner)
	return err
}
