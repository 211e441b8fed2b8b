package engine

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
	"outreachd/storage"
)

// The organizations' LinkedIn seats (linkedin_accounts, storage.LinkedInAccount): connected here,
// kept in step with the provider's status reports, and picked to send from.

// ConnectSeat records a seat the provider connected. Connecting the same provider account again
// returns the existing row, marked connected (also when a person had disconnected it).
func ConnectSeat(ctx context.Context, q storage.Querier, orgID, name, providerAccountID string) (storage.LinkedInAccount, error) {
	a, err := storage.ScanLinkedInAccount(q.QueryRow(ctx, `INSERT INTO linkedin_accounts (id, org_id, name, provider_account_id)
		SELECT $1, o.id, $3, $4 FROM orgs o WHERE o.id = $2
		ON CONFLICT (provider_account_id) DO UPDATE SET status = 'connected', disconnected_at = NULL,
			disconnected_by = NULL, cooldown_until = NULL, updated_at = now()
		RETURNING `+storage.LinkedInAccountColumns, outreach.NewID("acc"), orgID, name, providerAccountID))
	if err != nil {
		return storage.LinkedInAccount{}, storage.NotFound(err, "org "+orgID)
	}
	if a.OrgID != orgID {
		return storage.LinkedInAccount{}, outreach.Conflictf("linkedin account %s belongs to another organization", providerAccountID)
	}
	return a, nil
}

// Seats lists every seat of every organization, oldest first; the engine makes sure its
// provider knows each one.
func Seats(ctx context.Context, q storage.Querier) ([]storage.LinkedInAccount, error) {
	rows, err := q.Query(ctx, `SELECT `+storage.LinkedInAccountColumns+` FROM linkedin_accounts ORDER BY created_at, id`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (storage.LinkedInAccount, error) { return storage.ScanLinkedInAccount(r) })
}

// Seat reads one seat by our id.
func Seat(ctx context.Context, q storage.Querier, id string) (storage.LinkedInAccount, error) {
	return getSeat(ctx, q, id)
}

// getSeat reads one seat by our id.
func getSeat(ctx context.Context, q storage.Querier, id string) (storage.LinkedInAccount, error) {
	a, err := storage.ScanLinkedInAccount(q.QueryRow(ctx, `SELECT `+storage.LinkedInAccountColumns+` FROM linkedin_accounts WHERE id = $1`, id))
	return a, storage.NotFound(err, "linkedin account "+id)
}

// lockSeatByProviderID locks the seat a provider report is about.
func lockSeatByProviderID(ctx context.Context, tx pgx.Tx, providerAccountID string) (storage.LinkedInAccount, error) {
	a, err := storage.ScanLinkedInAccount(tx.QueryRow(ctx, `SELECT `+storage.LinkedInAccountColumns+` FROM linkedin_accounts
		WHERE provider_account_id = $1 FOR UPDATE`, providerAccountID))
	return a, storage.NotFound(err, "linkedin account "+providerAccountID)
}

// seatChange is what a status report changes on a seat; nil fields stay as they are.
type seatChange struct {
	Status         string
	CooldownUntil  *time.Time
	DisconnectedAt *time.Time // set on disconnect; cleared when Status is connected
	SNVerdict      *string
	SNChangedAt    *time.Time
}

// updateSeat applies a status report to a seat.
func updateSeat(ctx context.Context, tx pgx.Tx, id string, c seatChange) error {
	_, err := tx.Exec(ctx, `UPDATE linkedin_accounts SET status = $2,
		cooldown_until = CASE WHEN $2 = 'rate_limited' THEN $3::timestamptz ELSE NULL END,
		disconnected_at = CASE WHEN $2 = 'connected' THEN NULL ELSE coalesce($4::timestamptz, disconnected_at) END,
		sn_verdict = coalesce($5::text, sn_verdict), sn_changed_at = coalesce($6::timestamptz, sn_changed_at), updated_at = now()
		WHERE id = $1`, id, c.Status, c.CooldownUntil, c.DisconnectedAt, c.SNVerdict, c.SNChangedAt)
	return err
}

// liftRateLimits returns seats whose cooldown ended to connected, and wakes their
// organizations' campaigns.
func liftRateLimits(ctx context.Context, q storage.Querier, now time.Time) error {
	rows, err := q.Query(ctx, `UPDATE linkedin_accounts SET status = 'connected', cooldown_until = NULL, updated_at = now()
		WHERE status = 'rate_limited' AND cooldown_until <= $1 RETURNING org_id`, now)
	if err != nil {
		return err
	}
	orgs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(orgs) == 0 {
		return err
	}
	return wakeCampaigns(ctx, q, orgs, now)
}

// wakeCampaigns has the sequencer look at once at the active campaigns of organizations whose
// seat may act again (its cooldown ended, it was reconnected): a campaign that found its seat
// down was put off by a quarter of an hour, and a cooldown can be a matter of seconds.
func wakeCampaigns(ctx context.Context, q storage.Querier, orgIDs []string, now time.Time) error {
	_, err := q.Exec(ctx, `UPDATE campaigns SET engine_next_at = LEAST(coalesce(engine_next_at, $2), $2)
		WHERE status = 'active' AND org_id = ANY($1)`, orgIDs, now)
	return err
}

// pickSendingSeat returns the seat a prospect is reached from: its own seat when it has one,
// else the first of the campaign's seats, else the organization's oldest seat. Disconnected
// seats are returned too, so the caller can tell "no seat" (ErrNotFound) from "seat down".
func pickSendingSeat(ctx context.Context, q storage.Querier, orgID string, prospectAccount *string, campaignAccounts []string) (storage.LinkedInAccount, error) {
	pref := campaignAccounts
	if prospectAccount != nil && *prospectAccount != "" {
		pref = []string{*prospectAccount}
	}
	a, err := storage.ScanLinkedInAccount(q.QueryRow(ctx, `SELECT `+storage.LinkedInAccountColumns+` FROM linkedin_accounts
		WHERE org_id = $1 AND (cardinality($2::text[]) = 0 OR id = ANY($2))
		ORDER BY array_position($2::text[], id), (status = 'disconnected'), created_at, id LIMIT 1`, orgID, pref))
	return a, storage.NotFound(err, "linkedin account for org "+orgID)
}

// pickSharedSeat returns the seat a new person of an outbound campaign listing several seats
// is reached from, so that the campaign's people are shared among them: the listed seat with
// the fewest of the campaign's people so far, connected ones first, then those not resting in
// this pass, then in list order. Disconnected seats are returned too (after the others).
func pickSharedSeat(ctx context.Context, q storage.Querier, campaignID, orgID string, seats, resting []string) (storage.LinkedInAccount, error) {
	a, err := storage.ScanLinkedInAccount(q.QueryRow(ctx, `SELECT `+storage.LinkedInAccountColumns+` FROM linkedin_accounts a
		WHERE org_id = $1 AND id = ANY($2)
		ORDER BY (status = 'disconnected'), (id = ANY($4::text[])),
			(SELECT count(*) FROM prospects p WHERE p.campaign_id = $3 AND p.account_id = a.id),
			array_position($2::text[], id)
		LIMIT 1`, orgID, seats, campaignID, resting))
	return a, storage.NotFound(err, "linkedin account for org "+orgID)
}
