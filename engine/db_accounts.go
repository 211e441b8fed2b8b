package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
)

// LinkedInAccount is one LinkedIn seat of an organization (linkedin_accounts). ID is ours, the
// one the API and events show; ProviderAccountID is what the LinkedIn provider knows it by.
type LinkedInAccount struct {
	ID                string
	OrgID             string
	Name              string
	ProviderAccountID string
	Status            string // connected, disconnected, rate_limited
	CooldownUntil     *time.Time
	DisconnectedAt    *time.Time
	SNVerdict         *string
	SNChangedAt       *time.Time
	CreatedAt         time.Time
}

const linkedInAccountColumns = `id, org_id, name, provider_account_id, status, cooldown_until, disconnected_at,
	sn_verdict, sn_changed_at, created_at`

func scanLinkedInAccount(row pgx.Row) (LinkedInAccount, error) {
	var a LinkedInAccount
	err := row.Scan(&a.ID, &a.OrgID, &a.Name, &a.ProviderAccountID, &a.Status, &a.CooldownUntil, &a.DisconnectedAt,
		&a.SNVerdict, &a.SNChangedAt, &a.CreatedAt)
	return a, err
}

// ConnectLinkedInAccount records a seat the provider connected. Connecting the same provider
// account again returns the existing row, marked connected.
func (s *Store) ConnectLinkedInAccount(ctx context.Context, orgID, name, providerAccountID string) (LinkedInAccount, error) {
	a, err := scanLinkedInAccount(s.pool.QueryRow(ctx, `INSERT INTO linkedin_accounts (id, org_id, name, provider_account_id)
		SELECT $1, o.id, $3, $4 FROM orgs o WHERE o.id = $2
		ON CONFLICT (provider_account_id) DO UPDATE SET status = 'connected', disconnected_at = NULL,
			cooldown_until = NULL, updated_at = now()
		RETURNING `+linkedInAccountColumns, outreach.NewID("acc"), orgID, name, providerAccountID))
	if err != nil {
		return LinkedInAccount{}, notFound(err, "org "+orgID)
	}
	if a.OrgID != orgID {
		return LinkedInAccount{}, fmt.Errorf("linkedin account %s belongs to another organization: %w", providerAccountID, outreach.ErrConflict)
	}
	return a, nil
}

// AllLinkedInAccounts lists every seat of every organization, oldest first; the engine makes
// sure its provider knows each one.
func (s *Store) AllLinkedInAccounts(ctx context.Context) ([]LinkedInAccount, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+linkedInAccountColumns+` FROM linkedin_accounts ORDER BY created_at, id`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (LinkedInAccount, error) { return scanLinkedInAccount(r) })
}

// GetLinkedInAccount reads one seat by our id.
func (s *Store) GetLinkedInAccount(ctx context.Context, id string) (LinkedInAccount, error) {
	a, err := scanLinkedInAccount(s.pool.QueryRow(ctx, `SELECT `+linkedInAccountColumns+` FROM linkedin_accounts WHERE id = $1`, id))
	return a, notFound(err, "linkedin account "+id)
}

// LockAccountByProviderID locks the seat a provider report is about.
func (tx *Tx) LockAccountByProviderID(ctx context.Context, providerAccountID string) (LinkedInAccount, error) {
	a, err := scanLinkedInAccount(tx.QueryRow(ctx, `SELECT `+linkedInAccountColumns+` FROM linkedin_accounts
		WHERE provider_account_id = $1 FOR UPDATE`, providerAccountID))
	return a, notFound(err, "linkedin account "+providerAccountID)
}

// AccountChange is what a status report changes on a seat; nil fields stay as they are.
type AccountChange struct {
	Status         string
	CooldownUntil  *time.Time
	DisconnectedAt *time.Time // set on disconnect; cleared when Status is connected
	SNVerdict      *string
	SNChangedAt    *time.Time
}

// UpdateLinkedInAccount applies a status report to a seat.
func (tx *Tx) UpdateLinkedInAccount(ctx context.Context, id string, c AccountChange) error {
	_, err := tx.Exec(ctx, `UPDATE linkedin_accounts SET status = $2,
		cooldown_until = CASE WHEN $2 = 'rate_limited' THEN $3::timestamptz ELSE NULL END,
		disconnected_at = CASE WHEN $2 = 'connected' THEN NULL ELSE coalesce($4::timestamptz, disconnected_at) END,
		sn_verdict = coalesce($5::text, sn_verdict), sn_changed_at = coalesce($6::timestamptz, sn_changed_at), updated_at = now()
		WHERE id = $1`, id, c.Status, c.CooldownUntil, c.DisconnectedAt, c.SNVerdict, c.SNChangedAt)
	return err
}

// LiftRateLimits returns seats whose cooldown ended to connected.
func (s *Store) LiftRateLimits(ctx context.Context, now time.Time) error {
	_, err := s.pool.Exec(ctx, `UPDATE linkedin_accounts SET status = 'connected', cooldown_until = NULL, updated_at = now()
		WHERE status = 'rate_limited' AND cooldown_until <= $1`, now)
	return err
}

// PickSendingAccount returns the seat a campaign sends from: the prospect's own seat when it has
// one, else the first of the campaign's seats, else the organization's oldest seat. Disconnected
// seats are returned too, so the caller can tell "no seat" (ErrNotFound) from "seat down".
func (tx *Tx) PickSendingAccount(ctx context.Context, orgID string, prospectAccount *string, campaignAccounts []string) (LinkedInAccount, error) {
	pref := campaignAccounts
	if prospectAccount != nil && *prospectAccount != "" {
		pref = []string{*prospectAccount}
	}
	a, err := scanLinkedInAccount(tx.QueryRow(ctx, `SELECT `+linkedInAccountColumns+` FROM linkedin_accounts
		WHERE org_id = $1 AND (cardinality($2::text[]) = 0 OR id = ANY($2))
		ORDER BY array_position($2::text[], id), (status = 'disconnected'), created_at, id LIMIT 1`, orgID, pref))
	return a, notFound(err, "linkedin account for org "+orgID)
}
