package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
)

// Queries of the application's pages (package webapp) that the API does not need. Every one is
// scoped by organization and served by an index (migration 040).

// APIKeyRow is one key as the API keys page lists it; the key itself is never stored.
type APIKeyRow struct {
	ID         string
	Prefix     *string // nil for keys made before prefixes were kept
	Scope      string
	ExpiresAt  *time.Time
	RevokedAt  *time.Time
	LastUsedAt *time.Time
	CreatedAt  time.Time
}

// ListAPIKeys returns the organization's keys, newest first, revoked ones included.
func (s *Store) ListAPIKeys(ctx context.Context, orgID string) ([]APIKeyRow, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, prefix, scope, expires_at, revoked_at, last_used_at, created_at
		FROM api_keys WHERE org_id = $1 ORDER BY created_at DESC, id DESC LIMIT 500`, orgID)
	if err != nil {
		return nil, fmt.Errorf("list api keys: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (APIKeyRow, error) {
		var k APIKeyRow
		err := r.Scan(&k.ID, &k.Prefix, &k.Scope, &k.ExpiresAt, &k.RevokedAt, &k.LastUsedAt, &k.CreatedAt)
		return k, err
	})
}

// RevokeOrgAPIKey revokes a key of orgID; another organization's key is not found.
func (s *Store) RevokeOrgAPIKey(ctx context.Context, orgID, keyID string) error {
	tag, err := s.pool.Exec(ctx, `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
		WHERE id = $1 AND org_id = $2`, keyID, orgID)
	if err != nil {
		return fmt.Errorf("revoke key: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return outreach.NotFound("key %s", keyID)
	}
	return nil
}

// LiveIntakeToken reports since when the campaign has a live intake URL (ok false: none). The
// token itself cannot be shown again: only its hash is stored.
func (s *Store) LiveIntakeToken(ctx context.Context, orgID, campaignID string) (since time.Time, ok bool, err error) {
	err = s.pool.QueryRow(ctx, `SELECT created_at FROM intake_tokens
		WHERE campaign_id = $1 AND org_id = $2 AND revoked_at IS NULL`, campaignID, orgID).Scan(&since)
	if err == pgx.ErrNoRows {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, fmt.Errorf("intake token: %w", err)
	}
	return since, true, nil
}

// ActivityTotals are a campaign's lifetime activity counters.
type ActivityTotals struct {
	InvitesSent, ConnectionsAccepted, MessagesSent, Replies, Bookings int64
}

// CampaignActivityTotals sums the daily activity rollup per campaign of orgID (a few rows per
// campaign and day, read through the rollup's primary key).
func (s *Store) CampaignActivityTotals(ctx context.Context, orgID string) (map[string]ActivityTotals, error) {
	rows, err := s.pool.Query(ctx, `SELECT campaign_id, sum(invites_sent), sum(connections_accepted),
		sum(messages_sent), sum(replies), sum(bookings) FROM activity_daily WHERE org_id = $1 GROUP BY campaign_id`, orgID)
	if err != nil {
		return nil, fmt.Errorf("campaign activity: %w", err)
	}
	defer rows.Close()
	out := map[string]ActivityTotals{}
	for rows.Next() {
		var id string
		var t ActivityTotals
		if err := rows.Scan(&id, &t.InvitesSent, &t.ConnectionsAccepted, &t.MessagesSent, &t.Replies, &t.Bookings); err != nil {
			return nil, fmt.Errorf("campaign activity: %w", err)
		}
		out[id] = t
	}
	return out, rows.Err()
}

// NeedsHumanDraft returns the AI draft of one needs-human item of orgID, the name of the person
// it answers ("" when unknown) and whether the item is still open (the page quotes the draft and
// names its addressee before a person confirms sending it).
func (s *Store) NeedsHumanDraft(ctx context.Context, orgID, id string) (draft, name string, open bool, err error) {
	err = s.pool.QueryRow(ctx, `SELECT ai_draft, name, resolved_at IS NULL FROM needs_human WHERE org_id = $1 AND id = $2`,
		orgID, id).Scan(&draft, &name, &open)
	if err != nil {
		return "", "", false, notFound(err, "needs-human item "+id)
	}
	return draft, name, open, nil
}
