package storage

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"time"

	"outreachd/outreach"
)

// Session limits of the application: a session ends after Idle without a request, and at the
// latest Absolute after sign-in, whichever comes first.
type SessionLimits struct {
	Idle     time.Duration
	Absolute time.Duration
}

// CreateSession starts a session for userID and returns its token, shown only to the browser
// (a cookie); only the token's SHA-256 is stored.
func (s *Store) CreateSession(ctx context.Context, userID string, now time.Time, lim SessionLimits) (string, error) {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	token := base64.RawURLEncoding.EncodeToString(raw[:])
	_, err := s.pool.Exec(ctx, `INSERT INTO app_sessions (token_hash, user_id, created_at, last_seen_at, expires_at)
		VALUES ($1, $2, $3, $3, $4)`, HashKey(token), userID, now, now.Add(lim.Absolute))
	if err != nil {
		return "", fmt.Errorf("create session: %w", err)
	}
	// Sessions that ended are pruned by whoever signs in next; a few rows at a time.
	_, _ = s.async.Exec(ctx, `DELETE FROM app_sessions WHERE token_hash IN (
		SELECT token_hash FROM app_sessions WHERE expires_at < $1 LIMIT 100)`, now)
	return token, nil
}

// SessionUser resolves a session token to its user. A session past its absolute end or idle for
// longer than lim.Idle is outreach.ErrNotFound (and deleted). A live session's last_seen_at is
// moved forward at most once a minute, so reading pages does not write on every request.
func (s *Store) SessionUser(ctx context.Context, token string, now time.Time, lim SessionLimits) (User, error) {
	var u User
	var lastSeen, expires time.Time
	hash := HashKey(token)
	err := s.pool.QueryRow(ctx, `SELECT u.id, u.org_id, u.email, u.role, u.created_at, s.last_seen_at, s.expires_at
		FROM app_sessions s JOIN app_users u ON u.id = s.user_id WHERE s.token_hash = $1`, hash).
		Scan(&u.ID, &u.OrgID, &u.Email, &u.Role, &u.CreatedAt, &lastSeen, &expires)
	if err != nil {
		return User{}, notFound(err, "session")
	}
	if !now.Before(expires) || now.Sub(lastSeen) > lim.Idle {
		_ = s.DeleteSession(ctx, token)
		return User{}, outreach.NotFound("session ended")
	}
	if now.Sub(lastSeen) > time.Minute {
		if _, err := s.async.Exec(ctx, `UPDATE app_sessions SET last_seen_at = $2 WHERE token_hash = $1`, hash, now); err != nil {
			return User{}, fmt.Errorf("touch session: %w", err)
		}
	}
	return u, nil
}

// DeleteSession ends a session (sign-out). Ending an unknown session is not an error.
func (s *Store) DeleteSession(ctx context.Context, token string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM app_sessions WHERE token_hash = $1`, HashKey(token))
	return err
}

// LoginFailures counts the failed sign-ins of each key since since.
func (s *Store) LoginFailures(ctx context.Context, keys []string, since time.Time) (map[string]int, error) {
	rows, err := s.pool.Query(ctx, `SELECT key, count(*) FROM app_login_failures
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

// RecordLoginFailure notes one failed sign-in under each key and prunes rows older than
// keepSince.
func (s *Store) RecordLoginFailure(ctx context.Context, keys []string, now, keepSince time.Time) error {
	if _, err := s.pool.Exec(ctx, `INSERT INTO app_login_failures (key, at) SELECT k, $2 FROM unnest($1::text[]) k`,
		keys, now); err != nil {
		return fmt.Errorf("record failed sign-in: %w", err)
	}
	_, err := s.pool.Exec(ctx, `DELETE FROM app_login_failures WHERE ctid IN (
		SELECT ctid FROM app_login_failures WHERE at < $1 LIMIT 500)`, keepSince)
	return err
}

// ClearLoginFailures forgets the failures of key (an account that just signed in).
func (s *Store) ClearLoginFailures(ctx context.Context, key string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM app_login_failures WHERE key = $1`, key)
	return err
}
