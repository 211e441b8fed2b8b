package oauth

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"outreachd/outreach"
)

// The authorization server's rows after the exchange: revoking, checking and listing grants and
// their tokens, and pruning what has ended.

// revokeToken revokes the token with hash h on behalf of clientID ("" means any client): an
// access token alone, a refresh token with its whole grant (its access tokens stop working too).
// An unknown token is not an error (nothing to revoke); a token of another client answers
// outreach.ErrConflict and changes nothing.
func (d *db) revokeToken(ctx context.Context, h []byte, clientID string, now time.Time) error {
	return d.inTx(ctx, func(tx pgx.Tx) error {
		var grantID, kind, owner string
		err := tx.QueryRow(ctx, `SELECT t.grant_id, t.kind, g.client_id FROM oauth_tokens t
			JOIN oauth_grants g ON g.id = t.grant_id WHERE t.token_hash = $1`, h).Scan(&grantID, &kind, &owner)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if clientID != "" && clientID != owner {
			return outreach.Conflictf("token belongs to another client")
		}
		if kind == "refresh" {
			return revokeGrantTx(ctx, tx, grantID, now)
		}
		_, err = tx.Exec(ctx, `UPDATE oauth_tokens SET revoked_at = $2 WHERE token_hash = $1 AND revoked_at IS NULL`, h, now)
		return err
	})
}

// verifyAccess returns the grant of a live access token (unexpired, not revoked, grant not
// revoked, its person still a user of the organization) and when the token expires, and notes the grant's last use (at most once a minute).
// Anything else answers outreach.ErrNotFound.
func (d *db) verifyAccess(ctx context.Context, h []byte, now time.Time) (grantRecord, time.Time, error) {
	var g grantRecord
	var expires time.Time
	err := d.pool.QueryRow(ctx, `SELECT g.id, g.org_id, g.user_id, g.user_email, g.client_id, c.name, g.scope,
		g.created_at, g.last_used_at, t.expires_at
		FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id JOIN oauth_clients c ON c.id = g.client_id
		JOIN app_users u ON u.id = g.user_id AND u.org_id = g.org_id
		WHERE t.token_hash = $1 AND t.kind = 'access' AND t.revoked_at IS NULL AND g.revoked_at IS NULL
		  AND t.expires_at > $2`, h, now).
		Scan(&g.ID, &g.OrgID, &g.UserID, &g.UserEmail, &g.ClientID, &g.ClientName, &g.Scope,
			&g.CreatedAt, &g.LastUsedAt, &expires)
	if err != nil {
		return grantRecord{}, time.Time{}, noRow(err, "access token")
	}
	if g.LastUsedAt == nil || now.Sub(*g.LastUsedAt) > time.Minute {
		if _, err := d.async.Exec(ctx, `UPDATE oauth_grants SET last_used_at = $2 WHERE id = $1`, g.ID, now); err != nil {
			return grantRecord{}, time.Time{}, fmt.Errorf("note grant use: %w", err)
		}
	}
	return g, expires, nil
}

// listGrants lists the organization's live grants, newest first.
func (d *db) listGrants(ctx context.Context, orgID string) ([]grantRecord, error) {
	rows, err := d.pool.Query(ctx, `SELECT g.id, g.org_id, g.user_id, g.user_email, g.client_id, c.name, g.scope,
		g.created_at, g.last_used_at
		FROM oauth_grants g JOIN oauth_clients c ON c.id = g.client_id
		WHERE g.org_id = $1 AND g.revoked_at IS NULL ORDER BY g.created_at DESC, g.id DESC LIMIT 500`, orgID)
	if err != nil {
		return nil, fmt.Errorf("list oauth grants: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (grantRecord, error) {
		var g grantRecord
		err := r.Scan(&g.ID, &g.OrgID, &g.UserID, &g.UserEmail, &g.ClientID, &g.ClientName, &g.Scope, &g.CreatedAt, &g.LastUsedAt)
		return g, err
	})
}

// revokeGrant revokes one live grant of the organization (outreach.ErrNotFound otherwise).
func (d *db) revokeGrant(ctx context.Context, orgID, grantID string, now time.Time) error {
	tag, err := d.pool.Exec(ctx, `UPDATE oauth_grants SET revoked_at = $3
		WHERE id = $2 AND org_id = $1 AND revoked_at IS NULL`, orgID, grantID, now)
	if err != nil {
		return fmt.Errorf("revoke oauth grant: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return outreach.NotFound("connected assistant %s", grantID)
	}
	return nil
}

// prune deletes, as of now: codes and tokens that expired over a day ago (codes are kept a
// while past their life so that a late second use still finds, and revokes, the grant of the
// first), grants revoked over a day ago, and clients registered over a week ago that no person
// ever allowed (registration is open; these are abandoned or abusive).
func (d *db) prune(ctx context.Context, now time.Time) error {
	day := now.Add(-24 * time.Hour)
	for _, q := range []struct {
		sql    string
		cutoff time.Time
	}{
		{`DELETE FROM oauth_codes WHERE expires_at < $1`, day},
		{`DELETE FROM oauth_tokens WHERE expires_at < $1`, day},
		{`DELETE FROM oauth_grants WHERE revoked_at < $1`, day},
		{`DELETE FROM oauth_clients WHERE first_allowed_at IS NULL AND created_at < $1`, now.Add(-7 * 24 * time.Hour)},
	} {
		if _, err := d.pool.Exec(ctx, q.sql, q.cutoff); err != nil {
			return fmt.Errorf("prune oauth: %w", err)
		}
	}
	return nil
}
