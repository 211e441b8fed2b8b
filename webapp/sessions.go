package webapp

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"time"

	"outreachd/outreach"
	"outreachd/storage"
)

// sessionLimits are the application's: a session ends after Idle without a request, and at the
// latest Absolute after sign-in, whichever comes first.
type sessionLimits struct {
	Idle     time.Duration
	Absolute time.Duration
}

// createSession starts a session for userID and returns its token, shown only to the browser
// (a cookie); only the token's SHA-256 is stored.
func (a *Accounts) createSession(ctx context.Context, userID string, now time.Time, lim sessionLimits) (string, error) {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	token := base64.RawURLEncoding.EncodeToString(raw[:])
	_, err := a.pool.Exec(ctx, `INSERT INTO app_sessions (token_hash, user_id, created_at, last_seen_at, expires_at)
		VALUES ($1, $2, $3, $3, $4)`, storage.HashKey(token), userID, now, now.Add(lim.Absolute))
	if err != nil {
		return "", fmt.Errorf("create session: %w", err)
	}
	// Sessions that ended are pruned by whoever signs in next; a few rows at a time.
	_, _ = a.async.Exec(ctx, `DELETE FROM app_sessions WHERE token_hash IN (
		SELECT token_hash FROM app_sessions WHERE expires_at < $1 LIMIT 100)`, now)
	return token, nil
}

// sessionUser resolves a session token to its user. A session past its absolute end or idle for
// longer than lim.Idle is outreach.ErrNotFound (and deleted). A live session's last_seen_at is
// moved forward at most once a minute, so reading pages does not write on every request.
func (a *Accounts) sessionUser(ctx context.Context, token string, now time.Time, lim sessionLimits) (Account, error) {
	var u Account
	var lastSeen, expires time.Time
	hash := storage.HashKey(token)
	err := a.pool.QueryRow(ctx, `SELECT u.id, u.org_id, u.email, u.role, u.created_at, s.last_seen_at, s.expires_at
		FROM app_sessions s JOIN app_users u ON u.id = s.user_id WHERE s.token_hash = $1`, hash).
		Scan(&u.ID, &u.OrgID, &u.Email, &u.Role, &u.CreatedAt, &lastSeen, &expires)
	if err != nil {
		return Account{}, storage.NotFound(err, "session")
	}
	if !now.Before(expires) || now.Sub(lastSeen) > lim.Idle {
		_ = a.deleteSession(ctx, token)
		return Account{}, outreach.NotFound("session ended")
	}
	if now.Sub(lastSeen) > time.Minute {
		if _, err := a.async.Exec(ctx, `UPDATE app_sessions SET last_seen_at = $2 WHERE token_hash = $1`, hash, now); err != nil {
			return Account{}, fmt.Errorf("touch session: %w", err)
		}
	}
	return u, nil
}

// deleteSession ends a session (sign-out). Ending an unknown session is not an error.
func (a *Accounts) deleteSession(ctx context.Context, token string) error {
	_, err := a.pool.Exec(ctx, `DELETE FROM app_sessions WHERE token_hash = $1`, storage.HashKey(token))
	return err
}

// loginFailures counts the failed sign-ins of each key since since.
func (a *Accounts) loginFailures(ctx context.Context, keys []string, since time.Time) (map[string]int, error) {
	rows, err := a.pool.Query(ctx, `SELECT key, count(*) FROM app_login_failures
		WHERE key = ANY($1) AND at >= $2 GROUP BY key`, keys, since)
	if err != nil {
		return nil, fmt.Errorf("count failed sign-ins: %w", err)
	}
	defer rows.Close()
	out := make(map[string]int, len(keys))
	for rows.Next() {
		var k string
		var n int
		if err := rows.Scan(&k, &n); err != nil {
			return nil, err
		}
		out[k] = n
	}
	return out, rows.Err()
}

// recordLoginFailure notes one failed sign-in under each key and prunes rows older than
// keepSince.
func (a *Accounts) recordLoginFailure(ctx context.Context, keys []string, now, keepSince time.Time) error {
	if _, err := a.pool.Exec(ctx, `INSERT INTO app_login_failures (key, at) SELECT k, $2 FROM unnest($1::text[]) k`,
		keys, now); err != nil {
		return fmt.Errorf("record failed sign-in: %w", err)
	}
	_, err := a.pool.Exec(ctx, `DELETE FROM app_login_failures WHERE ctid IN (
		SELECT ctid FROM app_login_failures WHERE at < $1 LIMIT 500)`, keepSince)
	return err
}

// clearLoginFailures forgets the failures of key (an account that just signed in).
func (a *Accounts) clearLoginFailures(ctx context.Context, key string) error {
	_, err := a.pool.Exec(ctx, `DELETE FROM app_login_failures WHERE key = $1`, key)
	return err
}
