package storage

import (
	"time"

	"github.com/jackc/pgx/v5"
)

// LinkedInAccount is one LinkedIn seat of an organization (linkedin_accounts). ID is ours, the
// one the API and events show; ProviderAccountID is what the LinkedIn provider knows it by. The
// engine keeps these rows (connecting seats, applying the provider's status reports); the API
// reads them.
type LinkedInAccount struct {
	ID                string
	OrgID             string
	Name              string
	ProviderAccountID string
	Status            string // connected, disconnected, rate_limited
	CooldownUntil     *time.Time
	DisconnectedAt    *time.Time
	// DisconnectedBy is the person who disconnected the seat ("user:<id>"); nil when the
	// provider reported it down, or while it is connected.
	DisconnectedBy *string
	SNVerdict      *string
	SNChangedAt    *time.Time
	CreatedAt      time.Time
}

// LinkedInAccountColumns is the explicit column list of a seat, in ScanLinkedInAccount's order.
const LinkedInAccountColumns = `id, org_id, name, provider_account_id, status, cooldown_until, disconnected_at,
	disconnected_by, sn_verdict, sn_changed_at, created_at`

// ScanLinkedInAccount reads one row selected with LinkedInAccountColumns.
func ScanLinkedInAccount(row pgx.Row) (LinkedInAccount, error) {
	var a LinkedInAccount
	err := row.Scan(&a.ID, &a.OrgID, &a.Name, &a.ProviderAccountID, &a.Status, &a.CooldownUntil, &a.DisconnectedAt,
		&a.DisconnectedBy, &a.SNVerdict, &a.SNChangedAt, &a.CreatedAt)
	return a, err
}
